/**
 * End-to-end webhook delivery: real NATS + database + one dispatcher + local receivers (127.0.0.1 only).
 *
 * 1. Throughput: N order-status events to one receiver; signed deliveries/s, and the database writes
 *    the dispatcher made per delivery (every write command its driver sent, counted).
 * 2. A slow endpoint beside it: the same N events to the fast receiver while SLOW events go to a
 *    receiver that answers each request after 5 s; the fast receiver's deliveries/s again, and the share
 *    of phase-1 throughput it lost.
 * 3. From outside: N events again, with the dispatcher and the receiver each a process of its own (this
 *    one only publishes), the CPU of each process; beside it, the floor: the same signed POSTs from a
 *    bare HTTP client process to the same receiver. Phases 1 and 2 share one process, so their rate
 *    says how much CPU that process got; phase 3's rate is the one to read.
 * 4. With BENCH_DISPATCHER_REPLICAS=2 (or more), the same with that many dispatcher processes sharing
 *    the work, as a deployment's replicas do: a Node process delivers on one core, and this is what
 *    another one adds on this machine.
 *
 *   pnpm exec tsx bench/webhook-dispatch.ts          (from the repo root)
 *   BENCH_EVENTS=5000 BENCH_SLOW_EVENTS=64 BENCH_TIMEOUT_S=120 pnpm exec tsx bench/webhook-dispatch.ts
 *
 * NATS_URL / MONGODB_URI are honoured; otherwise local ones are started and stopped.
 */

import type { ChildProcess } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { Events, Rpc, sampleTransaction, type TransactionDto } from "@ramp/contracts";
import { ensureServiceBundles, freePort, peerKeysFromSeeds, startInfra } from "@ramp/devinfra";
import { bindSigning, callRpc, ensureStreams, messageSigningFor, natsIdentity, publish } from "@ramp/runtime";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { descendantsMatching, runJson, spawnService, startListening } from "./support/child.ts";
import {
  formatProfile,
  monotonicUs,
  type ProfileWindow,
  summariseProfileDir,
} from "./support/cpu-profile.ts";
import { cpuMeter, formatCpu } from "./support/process-cpu.ts";
import { envNumber, report } from "./support/report.ts";

const N = envNumber("BENCH_EVENTS", 2000);
const SLOW = envNumber("BENCH_SLOW_EVENTS", 64);
const SLOW_MS = 5_000;
const PROFILED = process.env.BENCH_PROFILE === "webhook-dispatcher";
/** Phase 4's dispatcher processes; 1 (the default) skips the phase. */
const REPLICAS = envNumber("BENCH_DISPATCHER_REPLICAS", 1);
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

interface OutsideDeps {
  publish(orders: Array<{ o: TransactionDto; url: string | null }>): Promise<void>;
  apiKeyId: string;
  /** A connection allowed to configure webhooks (the gateway's). */
  nc: NatsConnection;
  dispatcherEnv: Record<string, string>;
  /** Dispatcher processes sharing the deliveries. */
  replicas: number;
  /** Measure the bare client's floor first (once per run is enough). */
  floor: boolean;
}

/** Until the process answers 200 on its readiness probe: connected and consuming. */
async function untilReady(port: number) {
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the webhook-dispatcher on health port ${port} was not ready within 60 s`);
}

/** The floor: the same signed POSTs to the same receiver from a bare HTTP client process. */
async function postFloor(
  receiver: { url: string; child: ChildProcess },
  secret: string,
  concurrency: number,
) {
  const floorMeter = cpuMeter({ receiver: receiver.child.pid }, "bench");
  const floor = await runJson<{ perSecond: number; failed: number; cpuMsPerPost: number }>(
    "bench/support/post-floor-main.ts",
    { url: receiver.url, secret, count: N, concurrency },
    60,
  );
  const floorReceiver = floorMeter.stop().processes.find((p) => p.name === "receiver")?.percent ?? 0;
  console.log(
    `floor: ${N} signed POSTs from a bare client process, ${concurrency} at once: ${floor.perSecond.toFixed(0)}/s, ` +
      `client CPU ${floor.cpuMsPerPost.toFixed(3)} ms/POST, receiver CPU ${((floorReceiver * 10) / floor.perSecond).toFixed(3)} ms/POST, ${floor.failed} failed`,
  );
  return floor;
}

/**
 * Deliveries measured from outside: the dispatcher as `npm start` runs it (a process of its own), the
 * receiver a process of its own, this process only publishing. The floor, in the same run: the same
 * signed POSTs to the same receiver from a bare HTTP client process, as many at once as the dispatcher
 * sends to one endpoint — the HTTP part of a delivery with nothing of ours in it.
 */
async function fromOutside(deps: OutsideDeps) {
  // As many at once as the dispatcher sends to one endpoint.
  const ENDPOINT_CONCURRENCY = loadWebhookDispatcherConfig(deps.dispatcherEnv).WEBHOOK_ENDPOINT_CONCURRENCY;
  const receiver = await startListening("bench/support/webhook-receiver-main.ts");
  await ensureServiceBundles(["webhook-dispatcher"]);
  // BENCH_PROFILE=webhook-dispatcher: under V8's CPU profiler, the self time of its processes together
  // printed for the deliveries.
  const profileDir = PROFILED ? mkdtempSync(join(tmpdir(), "ramp-prof-")) : undefined;
  const healthPorts: number[] = [];
  while (healthPorts.length < deps.replicas) healthPorts.push(await freePort());
  const dispatchers = healthPorts.map((port) =>
    spawnService(
      "webhook-dispatcher",
      { ...deps.dispatcherEnv, HEALTH_PORT: String(port) },
      profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
    ),
  );
  // Their log (warnings only, LOG_LEVEL=warn) is shown, and read: a full pipe would stall them.
  for (const d of dispatchers) d.stdout?.pipe(process.stdout);
  const exited = dispatchers.map((d) => new Promise((resolve) => d.on("exit", resolve)));
  const processes = deps.replicas === 1 ? "the dispatcher" : `${deps.replicas} dispatcher processes`;
  let window: ProfileWindow | undefined;
  const stopAll = async () => {
    receiver.child.kill("SIGTERM");
    for (const d of dispatchers) d.kill("SIGTERM");
    const killer = setTimeout(() => {
      for (const d of dispatchers) d.kill("SIGKILL");
    }, 30_000);
    await Promise.all(exited);
    clearTimeout(killer);
    if (!profileDir) return;
    const summary = summariseProfileDir(profileDir, window);
    if (summary)
      console.log(`${processes}'s CPU profile while the deliveries flowed:\n${formatProfile(summary, 25)}`);
    // BENCH_PROFILE_KEEP=1 leaves the .cpuprofile for a closer look (Chrome DevTools opens it).
    if (process.env.BENCH_PROFILE_KEEP === "1") console.log(`profile kept in ${profileDir}`);
    else rmSync(profileDir, { recursive: true, force: true });
  };
  try {
    // Configuring the endpoint is answered by the dispatcher: its answer says it is up.
    let cfg: { webhookSecret: string } | undefined;
    for (const until = Date.now() + 60_000; !cfg && Date.now() < until; ) {
      cfg = await callRpc(deps.nc, Rpc.webhookConfigUpdate, {
        apiKeyId: deps.apiKeyId,
        body: { rampWebhookURL: receiver.url },
      }).catch(async () => {
        await new Promise((r) => setTimeout(r, 250));
        return undefined;
      });
    }
    if (!cfg) throw new Error("the webhook-dispatcher process did not answer within 60 s");
    // Every replica consuming before the events go out, or the first would take them all.
    await Promise.all(healthPorts.map(untilReady));
    const control = (path: string, body?: string) =>
      fetch(new URL(path, receiver.url), { method: body === undefined ? "GET" : "POST", body });
    await control("/_secret", cfg.webhookSecret);
    const stats = async () =>
      (await (await control("/_stats")).json()) as {
        received: number;
        rejected: number;
        p50Ms: number;
        p99Ms: number;
      };

    const floor = deps.floor ? await postFloor(receiver, cfg.webhookSecret, ENDPOINT_CONCURRENCY) : undefined;
    await control("/_reset", "");

    const meter = cpuMeter(
      {
        "webhook-dispatcher": () => dispatchers.flatMap((d) => (d.pid === undefined ? [] : [d.pid])),
        receiver: receiver.child.pid,
        "nats-server": descendantsMatching(/nats-server/),
        database: descendantsMatching(/ferretdb|postgres/),
      },
      "bench (publisher)",
    );
    const orders = Array.from({ length: N }, () => ({ o: order(), url: null }));
    const t0 = performance.now();
    const fromUs = monotonicUs();
    await deps.publish(orders);
    let now = await stats();
    while (now.received < N && Date.now() < DEADLINE) {
      await new Promise((r) => setTimeout(r, 20));
      now = await stats();
    }
    const seconds = (performance.now() - t0) / 1000;
    window = { fromUs, toUs: monotonicUs() };
    const shares = meter.stop();
    const rate = now.received / seconds;
    const dispatcherShare = shares.processes.find((p) => p.name === "webhook-dispatcher")?.percent ?? 0;
    const timedOut = now.received < N;
    console.log(
      `from outside, ${processes}: ${now.received}/${N} signed deliveries in ${(seconds * 1000).toFixed(0)} ms → ${rate.toFixed(0)}/s, ` +
        `p50 ${now.p50Ms} ms, p99 ${now.p99Ms} ms, ${now.rejected} rejected${timedOut ? " — TIMED OUT" : ""}; ${formatCpu(shares)}`,
    );
    if (floor) {
      report({
        key: "webhook-post-floor",
        label: `signed POSTs from a bare client process to the same receiver, ${ENDPOINT_CONCURRENCY} at once`,
        value: floor.perSecond,
        unit: "POSTs/s",
      });
      report({
        key: "webhook-post-floor-cpu",
        label: "CPU per signed POST, bare client process",
        value: floor.cpuMsPerPost,
        unit: "ms/POST",
      });
    }
    const replicasKey = deps.replicas === 1 ? "" : `-${deps.replicas}-replicas`;
    report({
      key: `webhook-deliveries-external${replicasKey}`,
      label:
        deps.replicas === 1
          ? "webhook deliveries, dispatcher and receiver processes of their own (event → signed POST)"
          : `webhook deliveries, ${deps.replicas} dispatcher processes sharing them, receiver a process of its own`,
      value: rate,
      unit: "deliveries/s",
      p50Ms: now.p50Ms,
      p99Ms: now.p99Ms,
    });
    report({
      key: `webhook-dispatcher-cpu-per-delivery${replicasKey}`,
      label:
        deps.replicas === 1
          ? "CPU per webhook delivery, webhook-dispatcher process"
          : `CPU per webhook delivery, ${deps.replicas} webhook-dispatcher processes together`,
      value: (dispatcherShare * 10) / Math.max(1, rate),
      unit: "ms/delivery",
    });
    // A floor POST or a delivery the receiver refused makes the figures meaningless: the run fails.
    return { timedOut, failed: (floor?.failed ?? 0) + now.rejected > 0 };
  } finally {
    await stopAll();
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
  const infra = await startInfra({ dataDir });
  console.log(`infra: ${infra.source} (nats ${infra.natsUrl})`);
  const fast = await receiver(0);
  const slow = await receiver(SLOW_MS);

  const uri = infra.mongoUrl;
  const dispatcherEnv: Record<string, string> = {
    NATS_URL: infra.natsUrl,
    NATS_NKEY_SEED: infra.natsSeeds["webhook-dispatcher"] ?? "",
    NATS_PEER_KEYS: peerKeysFromSeeds(infra.natsSeeds),
    MONGODB_URI: uri,
    MONGODB_DATABASE: `bench_${run}_webhooks`,
    LOG_LEVEL: "warn",
    WEBHOOK_ALLOW_PRIVATE: "true",
  };
  const dispatcher = await startWebhookDispatcher(
    loadWebhookDispatcherConfig({
      ...dispatcherEnv,
      // The driver reports every command it sends: the dispatcher's database writes are counted, not guessed.
      MONGODB_URI: `${uri}${uri.includes("?") ? "&" : "?"}monitorCommands=true`,
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
  const natsBefore = dispatcher.deps.nc.stats();
  const alone = await phase("alone", 0);
  const natsAfter = dispatcher.deps.nc.stats();
  // The delivery log is flushed every 100 ms: let the last batch land before counting.
  await new Promise((r) => setTimeout(r, 500));
  const delivered = Math.max(1, N - fast.missing());
  const perDelivery = writes / delivered;
  console.log(
    `database writes: ${writes} for ${N - fast.missing()} deliveries → ${perDelivery.toFixed(3)} per delivery`,
  );
  // Every message the dispatcher's connection sent or received: events, its work queue, lane reads and
  // compare-and-sets, acknowledgements and their answers.
  const natsIn = (natsAfter.inMsgs - natsBefore.inMsgs) / delivered;
  const natsOut = (natsAfter.outMsgs - natsBefore.outMsgs) / delivered;
  console.log(
    `NATS messages per delivery on the dispatcher's connection: ${natsIn.toFixed(2)} in, ${natsOut.toFixed(2)} out`,
  );
  report({
    key: "webhook-nats-messages",
    label: "NATS messages per webhook delivery, dispatcher's connection (in + out)",
    value: natsIn + natsOut,
    unit: "messages/delivery",
  });

  console.log(
    `phase 2: ${N} events to it again, after ${SLOW} to a receiver answering after ${SLOW_MS / 1000} s`,
  );
  const beside = await phase("beside a slow endpoint", SLOW);
  const impact = (1 - beside.rate / alone.rate) * 100;
  console.log(`slow endpoint cost the fast one ${impact.toFixed(1)} % of its throughput`);
  if (fast.unsigned() + slow.unsigned() > 0)
    console.log(`UNSIGNED or badly signed requests: ${fast.unsigned() + slow.unsigned()}`);

  await dispatcher.stop();
  const outside = await fromOutside({ publish: emit, apiKeyId, nc, dispatcherEnv, replicas: 1, floor: true });
  const replicated =
    REPLICAS > 1
      ? await fromOutside({ publish: emit, apiKeyId, nc, dispatcherEnv, replicas: REPLICAS, floor: false })
      : { timedOut: false, failed: false };

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
  fast.close();
  slow.close();
  await infra.stop();
  rmSync(dataDir, { recursive: true, force: true });
  const failed =
    [alone, beside, outside, replicated].some((r) => r.timedOut) || outside.failed || replicated.failed;
  process.exit(failed ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
