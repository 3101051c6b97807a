/**
 * End-to-end webhook delivery: real NATS + database + one dispatcher + local receivers (127.0.0.1 only).
 *
 * 1. Throughput: N order-status events to one receiver; signed deliveries/s, and the database writes
 *    the dispatcher made per delivery (every write command its driver sent, counted).
 * 2. A slow endpoint beside it: the same N events to the fast receiver while SLOW events go to a
 *    receiver that answers each request after 5 s; the fast receiver's deliveries/s again, and the share
 *    of phase-1 throughput it lost.
 *
 *   pnpm exec tsx bench/webhook-dispatch.ts          (from the repo root)
 *   BENCH_EVENTS=5000 BENCH_SLOW_EVENTS=64 BENCH_TIMEOUT_S=120 pnpm exec tsx bench/webhook-dispatch.ts
 *
 * NATS_URL / MONGODB_URI are honoured; otherwise local ones are started and stopped.
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { Events, Rpc, sampleTransaction, type TransactionDto } from "@ramp/contracts";
import { peerKeysFromSeeds, startInfra } from "@ramp/devinfra";
import { bindSigning, callRpc, ensureStreams, messageSigningFor, natsIdentity, publish } from "@ramp/runtime";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { envNumber, report } from "./support/report.ts";

const N = envNumber("BENCH_EVENTS", 2000);
const SLOW = envNumber("BENCH_SLOW_EVENTS", 64);
const SLOW_MS = 5_000;
/** One deadline for both phases, so the script stays within what bench/run-all.ts allows it. */
const DEADLINE = Date.now() + envNumber("BENCH_TIMEOUT_S", 120) * 1000;
const WRITE_COMMANDS = new Set(["insert", "update", "delete", "findAndModify", "bulkWrite"]);
const run = randomBytes(4).toString("hex");
let next = 0;

function order(): TransactionDto {
  return sampleTransaction({
    id: `${run}${(next++).toString(16).padStart(16, "0")}`,
    signature: "",
    status: "INIT",
    // Publish time, so the receiver can measure per-delivery latency.
    createdAt: new Date().toISOString(),
    accountName: "BENCH(Pay NGN 16000)",
  });
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** A receiver that checks each signature, counts first arrivals of the ids it waits for, and answers after `delayMs`. */
async function receiver(delayMs: number) {
  let secret = "";
  let expected = new Set<string>();
  const latencies: number[] = [];
  let unsigned = 0;
  let done: () => void = () => undefined;
  let allIn = Promise.resolve();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const ts = String(req.headers["x-svc-timestamp"]);
      const mac = createHmac("sha256", secret).update(`${ts}.`).update(raw).digest("hex");
      if (req.headers["x-svc-signature"] !== `v1=${mac}`) unsigned++;
      else {
        const body = JSON.parse(raw.toString("utf8")) as TransactionDto;
        if (expected.delete(body.id)) {
          latencies.push(Date.now() - Date.parse(body.createdAt));
          if (expected.size === 0) done();
        }
      }
      setTimeout(() => res.writeHead(200).end("ok"), delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    setSecret: (s: string) => {
      secret = s;
    },
    /** Starts waiting for these ids; resolves false when they all arrived, true on timeout. */
    expect(ids: string[]) {
      expected = new Set(ids);
      latencies.length = 0;
      allIn = new Promise<void>((r) => {
        done = r;
      });
      return () =>
        Promise.race([
          allIn.then(() => false),
          new Promise<boolean>((r) => setTimeout(() => r(true), Math.max(0, DEADLINE - Date.now())).unref()),
        ]);
    },
    latencies,
    missing: () => expected.size,
    unsigned: () => unsigned,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
  const infra = await startInfra({ dataDir });
  console.log(`infra: ${infra.source} (nats ${infra.natsUrl})`);
  const fast = await receiver(0);
  const slow = await receiver(SLOW_MS);

  const uri = infra.mongoUrl;
  const dispatcher = await startWebhookDispatcher(
    loadWebhookDispatcherConfig({
      NATS_URL: infra.natsUrl,
      NATS_NKEY_SEED: infra.natsSeeds["webhook-dispatcher"],
      NATS_PEER_KEYS: peerKeysFromSeeds(infra.natsSeeds),
      // The driver reports every command it sends: the dispatcher's database writes are counted, not guessed.
      MONGODB_URI: `${uri}${uri.includes("?") ? "&" : "?"}monitorCommands=true`,
      MONGODB_DATABASE: `bench_${run}_webhooks`,
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_PRIVATE: "true",
    }),
  );
  let writes = 0;
  dispatcher.deps.db.client.on("commandStarted", (e) => {
    if (WRITE_COMMANDS.has(e.commandName)) writes++;
  });
  // Configured as the gateway would, fed as orders would: each connection only as its service may.
  // Without async stack traces, as every service connects (runtime/src/service.ts).
  const nc = await connect({
    servers: infra.natsUrl,
    ...natsIdentity("gateway", infra.natsSeeds.gateway),
    noAsyncTraces: true,
  });
  const ordersNc = await connect({
    servers: infra.natsUrl,
    ...natsIdentity("orders", infra.natsSeeds.orders),
    noAsyncTraces: true,
  });
  // Signed as orders signs its events, or the dispatcher would refuse them.
  bindSigning(
    ordersNc,
    messageSigningFor("orders", {
      NATS_NKEY_SEED: infra.natsSeeds.orders,
      NATS_PEER_KEYS: peerKeysFromSeeds(infra.natsSeeds),
    }),
  );
  const { js } = await ensureStreams(ordersNc);
  const apiKeyId = `bench-${run}`;
  const cfg = await callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId, body: { rampWebhookURL: fast.url } });
  fast.setSecret(cfg.webhookSecret);
  slow.setSecret(cfg.webhookSecret);

  const emit = async (orders: Array<{ o: TransactionDto; url: string | null }>) => {
    for (let i = 0; i < orders.length; i += 500) {
      await Promise.all(
        orders
          .slice(i, i + 500)
          .map(({ o, url }) =>
            publish(
              js,
              Events.orderStatusChanged,
              { businessId: "bench", apiKeyId, webhookURL: url, sequence: 0, order: o },
              `${o.id}:INIT`,
            ),
          ),
      );
    }
  };

  /** Publishes, waits for every fast delivery, and returns deliveries/s to the fast receiver. */
  const phase = async (name: string, slowCount: number) => {
    const fastOrders = Array.from({ length: N }, () => ({ o: order(), url: null }));
    const slowOrders = Array.from({ length: slowCount }, () => ({ o: order(), url: slow.url }));
    const waitFast = fast.expect(fastOrders.map((x) => x.o.id));
    slow.expect(slowOrders.map((x) => x.o.id));
    // The slow endpoint's work goes in first, so it is ahead of the fast one in the queue.
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await emit([...slowOrders, ...fastOrders]);
    const timedOut = await waitFast();
    const elapsed = performance.now() - t0;
    // Publisher, dispatcher and receivers share this process: its CPU per delivery varies less than the
    // rate on a machine other work shares.
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000 / N;
    const rate = ((N - fast.missing()) / elapsed) * 1000;
    const sorted = [...fast.latencies].sort((a, b) => a - b);
    console.log(
      `${name}: ${N - fast.missing()}/${N} signed deliveries in ${elapsed.toFixed(0)} ms → ${rate.toFixed(1)}/s` +
        `  latency p50 ${pct(sorted, 0.5)} p99 ${pct(sorted, 0.99)} ms  process CPU ${cpuMs.toFixed(2)} ms/delivery` +
        (timedOut ? "  — TIMED OUT" : ""),
    );
    return { rate, timedOut, cpuMs, p50: pct(sorted, 0.5), p99: pct(sorted, 0.99) };
  };

  console.log(`phase 1: ${N} events to one receiver`);
  writes = 0;
  const alone = await phase("alone", 0);
  // The delivery log is flushed every 100 ms: let the last batch land before counting.
  await new Promise((r) => setTimeout(r, 500));
  const perDelivery = writes / Math.max(1, N - fast.missing());
  console.log(
    `database writes: ${writes} for ${N - fast.missing()} deliveries → ${perDelivery.toFixed(3)} per delivery`,
  );

  console.log(
    `phase 2: ${N} events to it again, after ${SLOW} to a receiver answering after ${SLOW_MS / 1000} s`,
  );
  const beside = await phase("beside a slow endpoint", SLOW);
  const impact = (1 - beside.rate / alone.rate) * 100;
  console.log(`slow endpoint cost the fast one ${impact.toFixed(1)} % of its throughput`);
  if (fast.unsigned() + slow.unsigned() > 0)
    console.log(`UNSIGNED or badly signed requests: ${fast.unsigned() + slow.unsigned()}`);

  console.log(`RESULT webhook deliveries/s: ${alone.rate.toFixed(1)}`);
  report({
    key: "webhook-deliveries",
    label: "webhook deliveries (event → signed POST)",
    value: alone.rate,
    unit: "deliveries/s",
    p50Ms: alone.p50,
    p99Ms: alone.p99,
  });
  report({
    key: "webhook-cpu-per-delivery",
    label: "CPU per webhook delivery, publisher, dispatcher and receivers in one process",
    value: alone.cpuMs,
    unit: "ms/delivery",
  });
  report({
    key: "webhook-db-writes",
    label: "database writes per webhook delivery",
    value: perDelivery,
    unit: "writes/delivery",
  });
  report({
    key: "webhook-deliveries-beside-slow",
    label: `webhook deliveries beside a ${SLOW_MS / 1000} s endpoint`,
    value: beside.rate,
    unit: "deliveries/s",
    p50Ms: beside.p50,
    p99Ms: beside.p99,
  });

  await nc.drain();
  await ordersNc.drain();
  await dispatcher.stop();
  fast.close();
  slow.close();
  await infra.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(alone.timedOut || beside.timedOut ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
