import { readFileSync } from "node:fs";
import { Connection } from "@solana/web3.js";
import { z } from "zod";
import type { SolanaRpc } from "../../src/chains/solana/rpc.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url);

/** A recorded JSON-RPC response body (`{ jsonrpc, result, id }`), as a mainnet node returned it. */
export function fixture(name: string): { result: unknown } {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));
}

const SignatureInfo = z.looseObject({ signature: z.string() });
const Request = z.object({
  id: z.union([z.string(), z.number()]),
  method: z.string(),
  params: z.array(z.unknown()),
});
const SignaturesParams = z.tuple([
  z.string(),
  z.looseObject({
    limit: z.number().optional(),
    until: z.string().optional(),
    before: z.string().optional(),
  }),
]);

/**
 * A ledger of recorded responses served through a real `Connection`: the request goes through
 * web3.js's own JSON-RPC client and response validation, only the HTTP hop is replaced. The
 * signature listing honours `until`/`before`/`limit` the way a node does, so the cursor logic runs
 * against node semantics; transactions and accounts are looked up by key.
 */
export class RecordedLedger {
  /** Newest first, per address, as getSignaturesForAddress lists them. */
  readonly signatures = new Map<string, z.infer<typeof SignatureInfo>[]>();
  readonly transactions = new Map<string, unknown>();
  readonly accounts = new Map<string, unknown>();
  readonly calls: { method: string; params: unknown[] }[] = [];

  addSignatures(address: string, file: string) {
    const listed = z.array(SignatureInfo).parse(fixture(file).result);
    this.signatures.set(address, [...listed, ...(this.signatures.get(address) ?? [])]);
  }

  addTransaction(file: string) {
    const { result } = fixture(file);
    const { transaction } = z
      .object({ transaction: z.object({ signatures: z.array(z.string()) }) })
      .parse(result);
    this.transactions.set(transaction.signatures[0] ?? "", result);
  }

  connection(): SolanaRpc {
    return new Connection("http://recorded.invalid", {
      commitment: "finalized",
      fetch: async (_url, init) => {
        const body: unknown = JSON.parse(String(init?.body));
        const answer = Array.isArray(body) ? body.map((r) => this.#answer(r)) : this.#answer(body);
        return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
      },
    });
  }

  #answer(raw: unknown) {
    const req = Request.parse(raw);
    this.calls.push({ method: req.method, params: req.params });
    return { jsonrpc: "2.0", id: req.id, result: this.#result(req.method, req.params) };
  }

  #result(method: string, params: unknown[]): unknown {
    switch (method) {
      case "getSignaturesForAddress": {
        const [address, opts] = SignaturesParams.parse(params);
        let list = this.signatures.get(address) ?? [];
        if (opts.before) list = list.slice(list.findIndex((s) => s.signature === opts.before) + 1);
        if (opts.until) {
          const stop = list.findIndex((s) => s.signature === opts.until);
          if (stop >= 0) list = list.slice(0, stop);
        }
        return list.slice(0, opts.limit ?? 1000);
      }
      case "getTransaction":
        return this.transactions.get(z.string().parse(params[0])) ?? null;
      case "getAccountInfo":
        return this.accounts.get(z.string().parse(params[0])) ?? { context: { slot: 1 }, value: null };
      default:
        throw new Error(`no recorded response for ${method}`);
    }
  }
}
