import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface JsonHttpServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

export interface JsonReply {
  status: number;
  body: unknown;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A loopback HTTP server that hands every POSTed JSON body to `handle` and writes back what it answers.
 * What local chain stand-ins need to look like a node's RPC endpoint, nothing more: no TLS, no auth.
 */
export async function startJsonHttpServer(
  handle: (body: unknown, path: string) => Promise<JsonReply>,
): Promise<JsonHttpServer> {
  const server = createServer((req, res) => {
    const reply = (r: JsonReply) => {
      res.writeHead(r.status, { "content-type": "application/json" });
      res.end(JSON.stringify(r.body));
    };
    if (req.method !== "POST") {
      reply({ status: 405, body: { error: "POST a JSON body" } });
      return;
    }
    readBody(req)
      .then((text) => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return { status: 400, body: { error: "body is not JSON" } };
        }
        return handle(body, req.url ?? "/");
      })
      .then(reply, (err: unknown) => reply({ status: 500, body: { error: String(err) } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Clients keep connections alive; without this, close() would wait for them to time out.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
