/**
 * A webhook receiver as a process of its own, as a business's endpoint is: verifies every delivery's
 * signature with the SDK, answers 200, and counts the first arrival of each order id and its latency
 * from the order's `createdAt` (the publish time the bench writes there). Prints `listening <url>`.
 *
 *   POST /hook      a delivery (or a floor request: the same signed body)
 *   POST /_secret   the secret to verify with (the body)
 *   GET  /_stats    {"received", "rejected", "p50Ms", "p99Ms"} since the last reset
 *   POST /_reset    forgets what arrived
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
// The one helper, not the whole runtime package: this process stands for a bare server.
import { onParentGone } from "@ramp/runtime/process-lifetime";
import { verifyWebhook } from "@ramp/sdk";

let secret = "";
let arrived = new Set<string>();
let latencies: number[] = [];
let rejected = 0;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    if (req.url === "/_secret") secret = raw.toString("utf8");
    else if (req.url === "/_reset") {
      arrived = new Set();
      latencies = [];
      rejected = 0;
    } else if (req.url === "/_stats") {
      const sorted = [...latencies].sort((a, b) => a - b);
      const stats = { received: arrived.size, rejected, p50Ms: pct(sorted, 0.5), p99Ms: pct(sorted, 0.99) };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats));
      return;
    } else {
      try {
        const payload = verifyWebhook({ rawBody: raw, headers: req.headers, secret });
        if ("transactionType" in payload && !arrived.has(payload.id)) {
          arrived.add(payload.id);
          latencies.push(Date.now() - Date.parse(payload.createdAt));
        }
      } catch {
        rejected++;
        res.writeHead(400).end();
        return;
      }
    }
    res.writeHead(200).end("ok");
  });
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}/hook\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  process.exit(0);
});
// A bench killed mid-run cannot send that SIGTERM.
onParentGone(() => process.exit(0));
