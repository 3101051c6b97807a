import { Address, Cell, type Transaction, type TupleItem } from "@ton/core";
import type { Blockchain, SendMessageResult } from "@ton/sandbox";
import type { TonRpc } from "../../src/chains/ton/rpc.ts";

/** The account a sandbox transaction belongs to (every contract in these tests is on workchain 0). */
function accountOf(tx: Transaction): string {
  return new Address(0, Buffer.from(tx.address.toString(16).padStart(64, "0"), "hex")).toRawString();
}

/**
 * The adapter's RPC surface on @ton/sandbox: get-methods, sends and balances run on the real TVM
 * emulator; transaction listing is served from every transaction the sandbox produced, with the
 * toncenter v2 paging rules (newest first, `lt`+`hash` exclusive start, `to_lt` exclusive bound).
 * Sandbox's own getTransactions is not used: it reorders its history in place on each call.
 */
export class SandboxTonRpc implements TonRpc {
  readonly #byAccount = new Map<string, Transaction[]>();

  constructor(readonly chain: Blockchain) {}

  /** Keeps the transactions of a send for later listing; returns the result for chaining. */
  record<T extends SendMessageResult>(result: T): T {
    for (const tx of result.transactions) {
      const list = this.#byAccount.get(accountOf(tx)) ?? [];
      list.push(tx);
      this.#byAccount.set(accountOf(tx), list);
    }
    return result;
  }

  async getTransactions(
    address: Address,
    opts: { limit: number; lt?: string; hash?: string; to_lt?: string; inclusive?: boolean },
  ): Promise<Transaction[]> {
    let list = [...(this.#byAccount.get(address.toRawString()) ?? [])].reverse();
    if (opts.lt && opts.hash) {
      const at = list.findIndex(
        (tx) => tx.lt.toString() === opts.lt && tx.hash().toString("base64") === opts.hash,
      );
      if (at < 0) throw new Error("transaction not found");
      list = list.slice(opts.inclusive ? at : at + 1);
    }
    const toLt = opts.to_lt;
    if (toLt) list = list.filter((tx) => tx.lt > BigInt(toLt));
    return list.slice(0, opts.limit);
  }

  async runMethod(address: Address, name: string, stack?: TupleItem[]) {
    const result = await this.chain.runGetMethod(address, name, stack);
    return { stack: result.stackReader };
  }

  async sendFile(boc: Buffer): Promise<void> {
    const cell = Cell.fromBoc(boc)[0];
    if (!cell) throw new Error("empty BOC");
    // A wallet that does not accept the message makes the sandbox throw, as toncenter answers an error.
    this.record(await this.chain.sendMessage(cell));
  }

  async isContractDeployed(address: Address): Promise<boolean> {
    return (await this.chain.getContract(address)).accountState?.type === "active";
  }

  async getBalance(address: Address): Promise<bigint> {
    return (await this.chain.getContract(address)).balance;
  }
}
