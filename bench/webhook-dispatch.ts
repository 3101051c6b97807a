/**
 * End-to-end webhook throughput: real NATS + database + one dispatcher + a local receiver.
 * Publishes N order-status events and measures how fast signed deliveries arrive.
 *
 *   pnpm exec tsx bench/webhook-dispatch.ts          (from the repo root)
 *   BENCH_EVENTS=2000 BENCH_CONCURRENCY=64 BENCH_TIMEOUT_S=120 pnpm exec tsx bench/webhook-dispatch.ts
 *
 * NATS_URL / MONGODB_URI are honoured (DESIGN §11); otherwise local ones are started and stopped.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { Events, Rpc, sampleTransaction, type TransactionDto } from "@ramp/contracts";
import { startInfra } from "@ramp/devinfra";
import { callRpc, ensureStreams, natsIdentity, publish } from "@ramp/runtime";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { report } from "./support/report.ts";

const N = Number(process.env.BENCH_EVENTS ?? 500);
// 16: on SQLite-backed FerretDB more parallel writers mostly add SQLITE_BUSY contention.
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? "16";
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 120) * 1000;
const run = randomBytes(4).toString("hex");

function order(i: number): TransactionDto {
  return sampleTransaction({
    id: `${run}${i.toString(16).padStart(16, "0")}`,
    signature: "",
    status: "INIT",
    // Publish time, so the receiver can measure per-delivery latency.
    createdAt: new Date().toISOString(),
    accountName: "BENCH(Pay NGN 16000)",
  });
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
  const infra = await startInfra({ dataDir });
  console.log(`infra: ${infra.source} (nats ${infra.natsUrl})`);

  const seen = new Set<string>();
  const latencies: number[] = [];
  let requests = 0;
  let done: () => void = () => undefined;
  const allIn = new Promise<void>((r) => {
    done = r;
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests++;
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as TransactionDto;
      if (body.id.startsWith(run) && !seen.has(body.id)) {
        seen.add(body.id);
        latencies.push(Date.now() - Date.parse(body.createdAt));
        if (seen.size === N) done();
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  const dispatcher = await startWebhookDispatcher(
    loadWebhookDispatcherConfig({
      NATS_URL: infra.natsUrl,
      NATS_NKEY_SEED: infra.natsSeeds["webhook-dispatcher"],
      MONGODB_URI: infra.mongoUrl,
      MONGODB_DATABASE: `bench_${run}_webhooks`,
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_CONCURRENCY: CONCURRENCY,
    }),
  );
  // Configured as the gateway would, fed as orders would: each connection only as its service may.
  const nc = await connect({ servers: infra.natsUrl, ...natsIdentity("gateway", infra.natsSeeds.gateway) });
  const ordersNc = await connect({
    servers: infra.natsUrl,
    ...natsIdentity("orders", infra.natsSeeds.orders),
  });
  const { js } = await ensureStreams(ordersNc);
  await callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId: `bench-${run}`, body: { rampWebhookURL: url } });

  console.log(`publishing ${N} order-status events (dispatcher concurrency ${CONCURRENCY})`);
  const t0 = performance.now();
  for (let i = 0; i < N; i += 200) {
    const batch = Array.from({ length: Math.min(200, N - i) }, (_, k) => order(i + k));
    await Promise.all(
      batch.map((o) =>
        publish(
          js,
          Events.orderStatusChanged,
          { businessId: "bench", apiKeyId: `bench-${run}`, webhookURL: null, sequence: 0, order: o },
          `${o.id}:INIT`,
        ),
      ),
    );
  }
  const published = performance.now() - t0;
  const timedOut = await Promise.race([
    allIn.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), TIMEOUT_MS).unref()),
  ]);
  const elapsed = performance.now() - t0;

  latencies.sort((a, b) => a - b);
  const rate = (seen.size / elapsed) * 1000;
  console.log(`published ${N} in ${published.toFixed(0)} ms (${((N / published) * 1000).toFixed(0)}/s)`);
  console.log(
    `delivered ${seen.size}/${N} (${requests} requests) in ${elapsed.toFixed(0)} ms${timedOut ? " — TIMED OUT" : ""}`,
  );
  console.log(
    `latency ms: p50 ${pct(latencies, 0.5)}  p95 ${pct(latencies, 0.95)}  max ${pct(latencies, 1)}`,
  );
  console.log(`RESULT webhook deliveries/s: ${rate.toFixed(1)}`);
  report({
    key: "webhook-deliveries",
    label: "webhook deliveries (event → signed POST)",
    value: rate,
    unit: "deliveries/s",
    p50Ms: pct(latencies, 0.5),
    p99Ms: pct(latencies, 0.99),
  });

  await nc.drain();
  await ordersNc.drain();
  await dispatcher.stop();
  server.close();
  await infra.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(timedOut ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
