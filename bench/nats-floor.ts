/**
 * The request/reply floor for the pricing figure of bench/gateway-rates.ts: one connection answers a
 * fixed rate JSON on a private subject, another keeps BENCH_CONCURRENCY requests in flight for
 * BENCH_DURATION_S seconds. No validation, no handler: what NATS itself costs on this machine.
 *
 *   pnpm exec tsx bench/nats-floor.ts          (NATS_URL is honoured; otherwise a local server is started)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createInbox } from "@nats-io/transport-node";
import { ensureNatsServer, type RunningProcess, startNats, TOOLS_DIR } from "@ramp/devinfra";
import { closedLoop } from "./support/closed-loop.ts";
import { envNumber, report } from "./support/report.ts";
import { STATIC_RATES } from "./support/static-rate.ts";

const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);

const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
const local: RunningProcess | undefined = process.env.NATS_URL
  ? undefined
  : await startNats(ensureNatsServer(TOOLS_DIR), dataDir);
const url = process.env.NATS_URL ?? local?.url ?? "";
const server = await connect({ servers: url });
const client = await connect({ servers: url });
// A subject of its own (an inbox name), so the floor never meets a real service's traffic.
const subject = createInbox("bench");
const answer = new TextEncoder().encode(JSON.stringify({ ok: true, data: STATIC_RATES }));
const sub = server.subscribe(subject, {
  queue: "bench",
  callback: (_err, msg) => {
    msg.respond(answer);
  },
});
await server.flush();

const request = new TextEncoder().encode(
  JSON.stringify({ businessId: "0123456789abcdef01234567", currency: "NGN" }),
);
const r = await closedLoop(CONCURRENCY, DURATION_S, async () => {
  await client.request(subject, request, { timeout: 5_000 });
  return true;
});
console.log(
  `bare NATS request/reply: ${r.perSecond.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${r.errors} errors`,
);
report({
  key: "nats-floor",
  label: "bare NATS request/reply",
  value: r.perSecond,
  unit: "req/s",
  p50Ms: r.p50Ms,
  p99Ms: r.p99Ms,
});

sub.unsubscribe();
await client.close();
await server.close();
await local?.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(r.errors > 0 ? 1 : 0);
