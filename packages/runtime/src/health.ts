import { createServer, type Server } from "node:http";
import { metrics } from "./metrics.ts";

export type ReadinessCheck = () => Promise<boolean>;

/**
 * `/healthz` answers while the process lives; `/readyz` only while every dependency answers;
 * `/metrics` is the Prometheus exposition.
 */
export function healthHandler(ready: ReadinessCheck) {
  return async (path: string): Promise<{ status: number; body: unknown; contentType?: string }> => {
    if (path === "/healthz") return { status: 200, body: { status: "ok" } };
    if (path === "/metrics")
      return { status: 200, body: await metrics.metrics(), contentType: metrics.contentType };
    if (path === "/readyz") {
      const ok = await ready().catch(() => false);
      return { status: ok ? 200 : 503, body: { status: ok ? "ready" : "unavailable" } };
    }
    return { status: 404, body: { status: "not found" } };
  };
}

export async function startHealthServer(port: number, ready: ReadinessCheck): Promise<Server> {
  const handle = healthHandler(ready);
  const server = createServer((req, res) => {
    void handle(new URL(req.url ?? "/", "http://x").pathname).then(({ status, body, contentType }) => {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      res.writeHead(status, { "content-type": contentType ?? "application/json" }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "0.0.0.0", resolve));
  return server;
}
