import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcCall {
  method: string;
  params: unknown;
}

/**
 * A JSON-RPC pass-through on 127.0.0.1 in front of a local node that records every call, so a test can
 * count what a client really sent (batched requests are recorded one by one), and that answers a
 * single call of a method in `refused` with an error, as a node in trouble would.
 */
export async function startRpcProxy(upstream: string) {
  const calls: RpcCall[] = [];
  const refused = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(body) as (RpcCall & { id?: unknown }) | RpcCall[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        calls.push({ method: call.method, params: call.params });
      }
      if (!Array.isArray(parsed) && refused.has(parsed.method)) {
        const error = { code: -32005, message: "node is behind" };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: parsed.id ?? null, error }));
        return;
      }
      fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (answer) => {
          res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    refused,
    /** Calls of `method` recorded since the last `take`, removed from the record. */
    take(method: string): RpcCall[] {
      const taken = calls.filter((c) => c.method === method);
      calls.length = 0;
      return taken;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
