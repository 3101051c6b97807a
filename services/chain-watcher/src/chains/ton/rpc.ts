import type { Address, Transaction, TupleItem, TupleReader } from "@ton/core";
import { TonClient } from "@ton/ton";

/**
 * The slice of `TonClient` (toncenter v2 API) the TON adapter uses. A real `TonClient` satisfies it;
 * tests inject one backed by @ton/sandbox, so the adapter runs against the real TVM without a network.
 *
 * getTransactions lists newest first; with `lt`+`hash` it starts strictly before that transaction
 * (unless `inclusive`), and `to_lt` is an exclusive lower bound.
 */
export interface TonRpc {
  getTransactions(
    address: Address,
    opts: {
      limit: number;
      lt?: string;
      hash?: string;
      to_lt?: string;
      inclusive?: boolean;
      archival?: boolean;
    },
  ): Promise<Transaction[]>;
  runMethod(address: Address, name: string, stack?: TupleItem[]): Promise<{ stack: TupleReader }>;
  sendFile(boc: Buffer): Promise<void>;
  isContractDeployed(address: Address): Promise<boolean>;
  getBalance(address: Address): Promise<bigint>;
}

export function tonRpc(endpoint: string, apiKey?: string): TonRpc {
  return new TonClient({ endpoint, ...(apiKey ? { apiKey } : {}) });
}
