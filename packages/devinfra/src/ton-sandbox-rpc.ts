import { Address, Cell, type Transaction, type TupleItem } from "@ton/core";
import { type Blockchain, GetMethodError, type SendMessageResult } from "@ton/sandbox";
import { type JsonHttpServer, startJsonHttpServer } from "./json-http-server.ts";
import { parseRequestStack, stackItemJson, transactionJson } from "./toncenter-json.ts";

/**
 * A TON node for tests on @ton/sandbox: get-methods, sends and balances run on the real TVM emulator;
 * transaction listing is served from every transaction recorded here, with toncenter v2's paging rules
 * (newest first, `lt`+`hash` start, `to_lt` exclusive bound). Sandbox's own getTransactions is not
 * used: it reorders its history in place on each call.
 *
 * Two faces over one state: the methods chain-watcher's `TonRpc` declares, for adapter tests in-process,
 * and a toncenter v2 `jsonRPC` endpoint on 127.0.0.1 for `TonClient` (what `RPC_URL_TON` points at).
 */

export class ToncenterError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The account a sandbox transaction belongs to (the sandbox runs workchain 0 accounts here). */
function accountOf(tx: Transaction): Address {
  return new Address(0, Buffer.from(tx.address.toString(16).padStart(64, "0"), "hex"));
}

const BLOCK_ID = {
  "@type": "ton.blockIdExt",
  workchain: -1,
  shard: "-9223372036854775808",
  seqno: 1,
  root_hash: "",
  file_hash: "",
};

export class SandboxTonRpc {
  readonly #byAccount = new Map<string, Transaction[]>();

  constructor(readonly chain: Blockchain) {}

  /** Keeps the transactions of a send for later listing; returns the result for chaining. */
  record<T extends SendMessageResult>(result: T): T {
    for (const tx of result.transactions) {
      const key = accountOf(tx).toRawString();
      const list = this.#byAccount.get(key) ?? [];
      list.push(tx);
      this.#byAccount.set(key, list);
    }
    return result;
  }

  /** TonClient semantics: newest first; `lt`+`hash` (base64) start strictly before that one unless `inclusive`. */
  async getTransactions(
    address: Address,
    opts: { limit: number; lt?: string; hash?: string; to_lt?: string; inclusive?: boolean },
  ): Promise<Transaction[]> {
    let list = [...(this.#byAccount.get(address.toRawString()) ?? [])].reverse();
    if (opts.lt && opts.hash) {
      const hash = opts.hash;
      const at = list.findIndex(
        (tx) =>
          tx.lt.toString() === opts.lt &&
          // toncenter takes the hash as hex or base64.
          (tx.hash().toString("base64") === hash || tx.hash().toString("hex") === hash.toLowerCase()),
      );
      if (at < 0) throw new ToncenterError(500, "transaction not found");
      list = list.slice(opts.inclusive ? at : at + 1);
    }
    const toLt = opts.to_lt;
    if (toLt && toLt !== "0") list = list.filter((tx) => tx.lt > BigInt(toLt));
    return list.slice(0, opts.limit);
  }

  async runMethod(address: Address, name: string, stack?: TupleItem[]) {
    const result = await this.chain.runGetMethod(address, name, stack);
    return { stack: result.stackReader };
  }

  async sendFile(boc: Buffer): Promise<void> {
    const cell = Cell.fromBoc(boc)[0];
    if (!cell) throw new ToncenterError(400, "empty BOC");
    // A wallet that does not accept the message makes the sandbox throw, as toncenter answers an error.
    this.record(await this.chain.sendMessage(cell));
  }

  async isContractDeployed(address: Address): Promise<boolean> {
    return (await this.chain.getContract(address)).accountState?.type === "active";
  }

  async getBalance(address: Address): Promise<bigint> {
    return (await this.chain.getContract(address)).balance;
  }

  /** One toncenter v2 jsonRPC method with its named params; throws ToncenterError. */
  async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const address = () => Address.parse(String(params.address));
    switch (method) {
      case "getAddressInformation":
        return this.#addressInformation(address());
      case "runGetMethod": {
        try {
          const result = await this.chain.runGetMethod(
            address(),
            String(params.method),
            parseRequestStack(params.stack),
          );
          return {
            gas_used: Number(result.gasUsed),
            exit_code: result.exitCode,
            stack: result.stack.map(stackItemJson),
          };
        } catch (err) {
          if (!(err instanceof GetMethodError)) throw err;
          return { gas_used: Number(err.gasUsed), exit_code: err.exitCode, stack: [] };
        }
      }
      case "getTransactions": {
        const text = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
        const lt = text(params.lt);
        const hash = text(params.hash);
        const toLt = text(params.to_lt);
        // toncenter starts at the given transaction itself; TonClient drops it when it asked exclusively.
        const list = await this.getTransactions(address(), {
          limit: Number(params.limit ?? 10),
          inclusive: true,
          ...(lt ? { lt } : {}),
          ...(hash ? { hash } : {}),
          ...(toLt ? { to_lt: toLt } : {}),
        });
        return list.map((tx) => transactionJson(tx, accountOf(tx)));
      }
      case "sendBoc":
        try {
          await this.sendFile(Buffer.from(String(params.boc), "base64"));
        } catch (err) {
          throw err instanceof ToncenterError
            ? err
            : new ToncenterError(500, `LITE_SERVER_UNKNOWN: ${String(err)}`);
        }
        return { "@type": "ok" };
      default:
        throw new ToncenterError(404, `method ${method} is not served`);
    }
  }

  async #addressInformation(address: Address) {
    const contract = await this.chain.getContract(address);
    const state = contract.accountState;
    const active = state?.type === "active" ? state.state : undefined;
    return {
      "@type": "raw.fullAccountState",
      balance: contract.balance.toString(),
      extra_currencies: [],
      state: state?.type === "active" ? "active" : state?.type === "frozen" ? "frozen" : "uninitialized",
      code: active?.code ? active.code.toBoc().toString("base64") : "",
      data: active?.data ? active.data.toBoc().toString("base64") : "",
      last_transaction_id: {
        "@type": "internal.transactionId",
        lt: contract.lastTransactionLt.toString(),
        hash: Buffer.from(contract.lastTransactionHash.toString(16).padStart(64, "0"), "hex").toString(
          "base64",
        ),
      },
      block_id: BLOCK_ID,
      sync_utime: this.chain.now ?? Math.floor(Date.now() / 1000),
    };
  }

  /** A toncenter v2 jsonRPC request body → HTTP status and body (`{ ok, result }` or `{ ok: false, error }`). */
  async handle(body: unknown): Promise<{ status: number; body: unknown }> {
    const {
      id = "1",
      method,
      params = {},
    } = (body ?? {}) as {
      id?: unknown;
      method?: string;
      params?: Record<string, unknown>;
    };
    try {
      const result = await this.call(String(method), params);
      return { status: 200, body: { ok: true, result, jsonrpc: "2.0", id } };
    } catch (err) {
      const code = err instanceof ToncenterError ? err.code : 500;
      return {
        status: code,
        body: { ok: false, error: String((err as Error).message ?? err), code, jsonrpc: "2.0", id },
      };
    }
  }
}

/** `rpc` as a toncenter v2 endpoint on 127.0.0.1; `url` is the jsonRPC URL TonClient takes. */
export async function startToncenterServer(rpc: SandboxTonRpc): Promise<JsonHttpServer> {
  const server = await startJsonHttpServer((body) => rpc.handle(body));
  return { url: `${server.url}/jsonRPC`, close: server.close };
}

export type { JsonHttpServer } from "./json-http-server.ts";
