/**
 * Deposit to webhook, end to end: a sandbox token deposit to an offramp order (HTTP, through the gateway)
 * until the integrator's endpoint on 127.0.0.1 receives the signed webhook that deposit causes. Every
 * service runs as its own process (as deployed), against real local NATS and database.
 *
 * "The" webhook is the order's PROCESSING update: the first status the deposit itself causes (orders
 * saw the funds land, moved INIT → PROCESSING and ordered the payout). COMPLETED follows later from the
 * bank rail's answer to that payout, not from the deposit, so it is not what is timed (those webhooks
 * are still sent during the run and are part of the load).
 *
 * The orders are opened before the clock starts; then deposits go out at each rate of BENCH_DEPOSIT_CURVE
 * (default 10, 20 and 30 per second: what this 2-core machine sustains, and 2× and 3× that) and last at
 * the goal's BENCH_DEPOSIT_RATE (default 50), each for BENCH_DURATION_S seconds with the pipeline drained
 * between, each deposit on its schedule whether or not earlier ones were answered (open loop: a slow
 * system is not given time to catch up). Past capacity deposits are shed with 503 and Retry-After, by the
 * gateway past its requests in flight and by orders while the deposits already made wait longer than
 * SANDBOX_DEPOSIT_MAX_LAG_MS to be applied (BENCH_DEPOSIT_MAX_LAG_MS sets it here; 0 sheds none that
 * way): counted as shed, not as failures. Before the first rate the idle stack's CPU is measured, and during each rate
 * every process's (services, NATS, FerretDB, PostgreSQL), which says whose cost binds the path. Latency is from just before the
 * deposit request is sent to the moment the receiver has the whole request and the project's SDK
 * verifier accepted its signature. The floor is a bare NATS request/reply round trip at the same rate,
 * on a nats-server of its own on the same machine in the same run: one hop of the several the deposit
 * makes. A second floor is the database's own CPU per operation, in the same run on the same database:
 * each rate's database CPU per deposit is read as a number of such operations (see `databaseFloor`).
 *
 *   npm run bench:deposit-webhook
 *   BENCH_DEPOSIT_RATE=50 BENCH_DURATION_S=5 npm run bench:deposit-webhook
 *   BENCH_LOG_LEVEL=info npm run bench:deposit-webhook   (the services' logs, kept in the printed folder when a run fails)
 *   BENCH_PROFILE=orders,chain-watcher npm run bench:deposit-webhook   (those run under node --cpu-prof;
 *                                                           their .cpuprofile files land in the printed folder)
 *   BENCH_PROFILE=all npm run bench:deposit-webhook   (every service profiled: the last rate's CPU per
 *                                                      deposit split by whose cost it is, see `whoseCost`)
 *
 * MONGODB_URI is honoured; otherwise a local mongod (or FerretDB) is started.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createInbox } from "@nats-io/transport-node";
import { SERVICE_NAMES, type ServiceName } from "@ramp/contracts";
import { ensureNatsServer, startLocalDatabase, startNats, TOOLS_DIR } from "@ramp/devinfra";
import { verifyWebhook } from "@ramp/sdk";
import { MongoClient, ObjectId } from "mongodb";
import { startProcessStack } from "../e2e/support/process-stack.ts";
import { baseOfframpBody, sandboxChainEnv } from "../e2e/support/tokens.ts";
import {
  type CostOwner,
  monotonicUs,
  type ProfileWindow,
  summariseProfileDir,
} from "./support/cpu-profile.ts";
import {
  type CpuShares,
  cpuMeter,
  formatCpu,
  type Pids,
  processTree,
  syscallMeter,
} from "./support/process-cpu.ts";
import { envNumber, report } from "./support/report.ts";

const RATE = envNumber("BENCH_DEPOSIT_RATE", 50);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
/**
 * The rates run before the goal's, each for DURATION_S with the pipeline drained between: the curve of
 * offered → answered, shed and latency (BENCH_DEPOSIT_CURVE, comma-separated; empty for none).
 */
const CURVE = (process.env.BENCH_DEPOSIT_CURVE ?? "10,20,30")
  .split(",")
  .filter((r) => r.trim() !== "")
  .map(Number);
if (CURVE.some((r) => !(r > 0))) throw new Error("BENCH_DEPOSIT_CURVE takes positive rates, comma-separated");
const RATES = [...CURVE, RATE];
/** How long the last deposits may take to show up before the run counts them as missing. */
const TIMEOUT_S = envNumber("BENCH_TIMEOUT_S", 120);
/** Seconds the stack is watched doing nothing before the deposits start. */
const IDLE_S = envNumber("BENCH_IDLE_S", 4);
/** Seconds of the database floor (see `databaseFloor`). */
const DB_FLOOR_S = envNumber("BENCH_DB_FLOOR_S", 3);
const GENERATOR = "bench (generator + receiver)";
const GOAL = { p50Ms: 50, p99Ms: 250 };
const ADMIN_TOKEN = "bench-admin-token-0123456789";
const depositsAt = (rate: number) => Math.max(1, Math.round(rate * DURATION_S));
const DEPOSITS = RATES.reduce((n, rate) => n + depositsAt(rate), 0);
/** Services to run under `node --cpu-prof`, comma-separated, or `all`. */
const PROFILED =
  process.env.BENCH_PROFILE === "all"
    ? [...SERVICE_NAMES]
    : (process.env.BENCH_PROFILE ?? "").split(",").filter((s) => s !== "");
for (const name of PROFILED)
  if (!(SERVICE_NAMES as readonly string[]).includes(name))
    throw new Error(`BENCH_PROFILE takes names among ${SERVICE_NAMES.join(", ")}`);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

/** Calls `fire(i)` for i = 0…count-1, the i-th at start + i/rate seconds, never waiting for an answer. */
async function paced(count: number, rate: number, fire: (i: number) => void): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    fire(i);
  }
}

/** The integrator's endpoint: verifies each delivery with the SDK and notes when each awaited status arrived. */
async function receiver() {
  let secret = "";
  const arrived = new Map<string, Map<string, number>>();
  let rejected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      let payload: ReturnType<typeof verifyWebhook>;
      try {
        payload = verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret });
      } catch {
        rejected++;
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200).end("ok");
      if (!("transactionType" in payload)) return;
      const seen = arrived.get(payload.status) ?? new Map<string, number>();
      arrived.set(payload.status, seen);
      if (!seen.has(payload.id)) seen.set(payload.id, at);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    setSecret: (s: string) => {
      secret = s;
    },
    /** When `id` first arrived with `status` (performance.now()), undefined until then. */
    arrivedAt: (id: string, status: string) => arrived.get(status)?.get(id),
    count: (status: string) => arrived.get(status)?.size ?? 0,
    rejected: () => rejected,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The floor: a bare NATS round trip (no validation, no handler), paced like the deposits. */
async function natsFloor(dataDir: string) {
  const nats = await startNats(ensureNatsServer(TOOLS_DIR), join(dataDir, "floor"));
  const server = await connect({ servers: nats.url });
  const client = await connect({ servers: nats.url });
  const subject = createInbox("bench");
  const sub = server.subscribe(subject, {
    callback: (_err, msg) => {
      msg.respond(msg.data);
    },
  });
  await server.flush();
  const body = new TextEncoder().encode(JSON.stringify({ amount: "1" }));
  const latencies: number[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  await paced(DEPOSITS, RATE, () => {
    const t = performance.now();
    pending.push(
      client.request(subject, body, { timeout: 5_000 }).then(
        () => void latencies.push(performance.now() - t),
        () => void errors++,
      ),
    );
  });
  await Promise.all(pending);
  sub.unsubscribe();
  await client.close();
  await server.close();
  await nats.stop();
  latencies.sort((a, b) => a - b);
  return { p50Ms: pct(latencies, 0.5), p99Ms: pct(latencies, 0.99), errors };
}

/** CPU the named processes used over a stretch, in ms, from their shares of a core. */
const cpuMsOf = (shares: CpuShares, names: string[], seconds: number) =>
  shares.processes.filter((p) => names.includes(p.name)).reduce((ms, p) => ms + p.percent * 10 * seconds, 0);

/**
 * The database's own CPU per operation, in the same run, on the same database and its processes: the
 * single-document operations a deposit's services make (an insert, a read by `_id`, an update by
 * `_id`), 16 in flight, for DB_FLOOR_S seconds, on a collection of their own while the services idle.
 * A deposit's database CPU divided by it is how many such operations the deposit costs the database:
 * near the operations its services send (`npm run bench:orders` counts them), the database's cost per
 * deposit is its own per operation, and what is ours is how many operations a deposit takes.
 */
async function databaseFloor(url: string, run: string, dbProcesses: Record<string, Pids>) {
  const client = await MongoClient.connect(url);
  const db = client.db(`bench_floor_${run}`);
  const col = db.collection<{ _id: ObjectId; n: number }>("ops");
  await col.insertOne({ _id: new ObjectId(), n: 0 });
  const names = Object.keys(dbProcesses);
  const meter = cpuMeter(dbProcesses, "bench");
  const started = performance.now();
  const until = started + DB_FLOOR_S * 1000;
  let ops = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < until) {
        const _id = new ObjectId();
        await col.insertOne({ _id, n: 0 });
        await col.findOne({ _id });
        await col.updateOne({ _id }, { $set: { n: 1 } });
        ops += 3;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = cpuMsOf(meter.stop(), names, seconds);
  await db.dropDatabase();
  await client.close();
  return { opsPerS: ops / seconds, cpuMsPerOp: cpuMs / ops };
}

/**
 * A rate's CPU per deposit by whose cost it is: the database's processes and nats-server whole, and each
 * profiled service's split by `ownerOf` (our code, the libraries it calls, or the clients, HTTP, Node
 * and V8 every such service pays). V8's profiler samples the main thread by the wall clock: on a machine
 * whose cores are full, a thread waiting for one is sampled as busy. So each service's CPU (from /proc)
 * is split in the shares of its profile, not by the profile's milliseconds.
 */
function whoseCost(
  profileDir: string,
  step: { msPerDeposit(name: string): number; window: ProfileWindow },
  dbNames: string[],
  rate: number,
): string {
  const totals = new Map<CostOwner, number>();
  const lines: string[] = [];
  let services = 0;
  for (const name of PROFILED) {
    const summary = summariseProfileDir(join(profileDir, name), step.window);
    const procMs = step.msPerDeposit(name);
    services += procMs;
    if (!summary) {
      lines.push(`    ${name}: ${procMs.toFixed(1)} ms, no profile written`);
      continue;
    }
    const shares = summary.owners.map((o) => ({
      owner: o.name as CostOwner,
      ms: (procMs * o.percent) / 100,
    }));
    for (const { owner, ms } of shares) totals.set(owner, (totals.get(owner) ?? 0) + ms);
    lines.push(
      `    ${name}: ${procMs.toFixed(1)} ms = ${shares.map((o) => `${o.owner} ${o.ms.toFixed(2)}`).join(", ")}`,
    );
  }
  const db = dbNames.reduce((ms, n) => ms + step.msPerDeposit(n), 0);
  const nats = step.msPerDeposit("nats-server");
  const whole = db + nats + services;
  const part = (label: string, ms: number) =>
    `    ${label}: ${ms.toFixed(1)} ms (${((ms / whole) * 100).toFixed(0)} %)`;
  return [
    `whose CPU a deposit costs at ${rate}/s (${whole.toFixed(1)} ms in the database, nats-server and the profiled services):`,
    part("the database's processes", db),
    part("nats-server", nats),
    ...[...totals].sort((a, b) => b[1] - a[1]).map(([owner, ms]) => part(`the services' ${owner}`, ms)),
    "  per service:",
    ...lines,
  ].join("\n");
}

async function main() {
  const run = randomBytes(4).toString("hex");
  const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
  const profileDir = join(dataDir, "profiles");
  mkdirSync(profileDir, { recursive: true });
  const db = process.env.MONGODB_URI ? undefined : await startLocalDatabase(dataDir);
  const hook = await receiver();
  const serviceEnv: Partial<Record<ServiceName, Record<string, string>>> = {
    "chain-watcher": sandboxChainEnv,
    // Rate limit lifted: this measures the system, not the limiter.
    gateway: { RATE_LIMIT_PER_SECOND: "0" },
    ...(process.env.BENCH_DEPOSIT_MAX_LAG_MS === undefined
      ? {}
      : { orders: { SANDBOX_DEPOSIT_MAX_LAG_MS: process.env.BENCH_DEPOSIT_MAX_LAG_MS } }),
  };
  const nodeArgs = Object.fromEntries(
    PROFILED.map((name) => [name, ["--cpu-prof", `--cpu-prof-dir=${join(profileDir, name)}`]]),
  );
  const stack = await startProcessStack({
    mongoUrl: process.env.MONGODB_URI ?? db?.url ?? "",
    natsBin: ensureNatsServer(TOOLS_DIR),
    dataDir,
    adminToken: ADMIN_TOKEN,
    logLevel: process.env.BENCH_LOG_LEVEL ?? "warn",
    serviceEnv,
    nodeArgs,
  });
  console.log(`services up (logs in ${stack.runDir})`);
  const base = stack.gatewayUrl;
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  await call("PUT", "/admin/v1/rates/NGN", { onRamp: 1650, offRamp: 1600 }, admin);
  const biz = await call("POST", "/admin/v1/businesses", { name: `Bench ${run}`, feeBps: 0 }, admin);
  const key = { "x-api-key": String(biz.apiKey) };
  hook.setSecret(String(biz.webhookSecret));
  await call("PATCH", "/pub/v2/webhook", { rampWebhookURL: hook.url }, key);

  console.log(`opening ${DEPOSITS} offramp orders`);
  const ids: string[] = [];
  for (let i = 0; i < DEPOSITS; i += 8) {
    const batch = Array.from({ length: Math.min(8, DEPOSITS - i) }, () =>
      call("POST", "/pub/v2/offramp", baseOfframpBody(), key),
    );
    for (const tx of await Promise.all(batch)) ids.push(String(tx.id));
  }
  const floor = await natsFloor(dataDir);
  console.log(
    `floor, bare NATS request/reply at ${RATE}/s: p50 ${floor.p50Ms.toFixed(2)} ms, p99 ${floor.p99Ms.toFixed(2)} ms, ${floor.errors} errors`,
  );

  // Who was busy while the deposits flowed: the services, NATS and the database (FerretDB, and
  // PostgreSQL's processes when it stores into one) — the profile that says whose cost binds the path.
  const pg = db && "postgres" in db ? (db.postgres as { child: { pid?: number } }).child.pid : undefined;
  const dbProcesses: Record<string, Pids> = {
    ...(db?.child.pid ? { [db.kind]: db.child.pid } : {}),
    ...(pg ? { postgresql: () => processTree(pg) } : {}),
  };
  const watched = {
    ...Object.fromEntries(stack.services().map((p) => [p.name, p.pid])),
    "nats-server": stack.natsPid,
    ...dbProcesses,
  };
  const dbFloor = db ? await databaseFloor(db.url, run, dbProcesses) : undefined;
  if (dbFloor)
    console.log(
      `floor, the database's own insert / find / update by _id, 16 at once: ${dbFloor.opsPerS.toFixed(0)} operations/s, ` +
        `its CPU ${dbFloor.cpuMsPerOp.toFixed(2)} ms per operation`,
    );
  // What the stack spends with nothing to do (sweeps, feeds, leases): the cost every deposit rides on.
  const idleMeter = cpuMeter(watched, GENERATOR);
  await sleep(IDLE_S * 1000);
  console.log(`idle for ${IDLE_S} s before the deposits, ${formatCpu(idleMeter.stop())}`);

  /** One rate for DURATION_S: its deposits, paced, then every PROCESSING webhook they owe. */
  async function step(rate: number, orders: string[]) {
    const sentAt = new Map<string, number>();
    /** When each deposit's 202 came back: splits the path into "recorded" and "event → webhook". */
    const acceptedIn: number[] = [];
    let shed = 0;
    let refused = 0;
    const reasons = new Map<string, number>();
    const refuse = (why: string) => {
      refused++;
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    };
    const answers: Promise<void>[] = [];
    const meter = cpuMeter(watched, GENERATOR);
    const calls = syscallMeter(watched);
    const firing = performance.now();
    const window = { fromUs: monotonicUs(), toUs: 0 };
    await paced(orders.length, rate, (i) => {
      const id = orders[i] as string;
      sentAt.set(id, performance.now());
      answers.push(
        fetch(`${base}/sandbox/v2/offramp/${id}/token-deposit`, {
          method: "POST",
          headers: { "content-type": "application/json", ...key },
          body: "{}",
        }).then(
          async (res) => {
            const text = await res.text();
            if (res.status === 202) acceptedIn.push(performance.now() - (sentAt.get(id) ?? 0));
            // Shed past capacity (503 with Retry-After): the bound doing its work, not a failure.
            else if (res.status === 503 && res.headers.has("retry-after")) {
              shed++;
              sentAt.delete(id);
            } else refuse(`${res.status} ${text.slice(0, 120)}`);
          },
          (err: unknown) => refuse(String(err)),
        ),
      );
    });
    const firedMs = performance.now() - firing;
    await Promise.all(answers);
    const owed = [...sentAt.keys()];
    const doneBy = Date.now() + TIMEOUT_S * 1000;
    while (owed.some((id) => hook.arrivedAt(id, "PROCESSING") === undefined) && Date.now() < doneBy)
      await sleep(50);
    const cpu = meter.stop();
    window.toUs = monotonicUs();
    const meteredS = (performance.now() - firing) / 1000;
    const latencies = owed
      .map((id) => (hook.arrivedAt(id, "PROCESSING") ?? Number.NaN) - (sentAt.get(id) ?? 0))
      .filter((x) => !Number.isNaN(x))
      .sort((a, b) => a - b);
    const missing = owed.length - latencies.length - refused;
    const p50 = pct(latencies, 0.5);
    const p99 = pct(latencies, 0.99);
    const seconds = firedMs / 1000;
    console.log(
      `${orders.length} deposits offered at ${rate}/s (over ${seconds.toFixed(1)} s): ` +
        `answered ${(acceptedIn.length / seconds).toFixed(1)}/s, shed ${(shed / seconds).toFixed(1)}/s (503), ` +
        `${refused} refused otherwise, ${missing} PROCESSING webhooks missing`,
    );
    for (const [why, n] of reasons) console.log(`  refused ${n}×: ${why}`);
    acceptedIn.sort((a, b) => a - b);
    console.log(
      `  deposit request → 202 (chain-watcher stored it): p50 ${pct(acceptedIn, 0.5).toFixed(1)} ms, p99 ${pct(acceptedIn, 0.99).toFixed(1)} ms`,
    );
    const meets = p50 <= GOAL.p50Ms && p99 <= GOAL.p99Ms;
    console.log(
      `  deposit → signed PROCESSING webhook: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(latencies.at(-1) ?? Number.NaN).toFixed(1)} ms ` +
        `(goal p50 ≤ ${GOAL.p50Ms} ms, p99 ≤ ${GOAL.p99Ms} ms: ${meets ? "met" : "missed"}); ` +
        `p50 ${(p50 / floor.p50Ms).toFixed(0)}× the floor's`,
    );
    console.log(`  while they flowed, ${formatCpu(cpu)}`);
    const perDeposit = (names: string[]) => cpuMsOf(cpu, names, meteredS) / Math.max(1, acceptedIn.length);
    const dbMsPerDeposit = perDeposit(Object.keys(dbProcesses));
    // The stack's processes, not the generator and receiver that stand in for the bank, chain and integrator.
    const stackMsPerDeposit = perDeposit(Object.keys(watched));
    if (dbFloor)
      console.log(
        `  CPU per deposit: ${stackMsPerDeposit.toFixed(1)} ms in the stack's processes, the database's ${dbMsPerDeposit.toFixed(1)} ms ` +
          `(${((dbMsPerDeposit / stackMsPerDeposit) * 100).toFixed(0)} %) = ${(dbMsPerDeposit / dbFloor.cpuMsPerOp).toFixed(1)} of its own operations (floor)`,
      );
    console.log(`  system calls per deposit, writes/reads: ${calls.stop(acceptedIn.length)}`);
    return {
      p50,
      p99,
      missing,
      refused,
      shed,
      answeredPerS: acceptedIn.length / seconds,
      dbMsPerDeposit,
      // For `whoseCost`: each process's CPU per deposit, and when the step ran.
      msPerDeposit: (name: string) => perDeposit([name]),
      window,
    };
  }

  let next = 0;
  let failures = 0;
  let atGoal: Awaited<ReturnType<typeof step>> | undefined;
  for (const [i, rate] of RATES.entries()) {
    const orders = ids.slice(next, next + depositsAt(rate));
    next += orders.length;
    const r = await step(rate, orders);
    failures += r.missing + r.refused;
    if (i === RATES.length - 1) atGoal = r;
    else
      report({
        key: `deposit-offered-${rate}`,
        label: `sandbox deposits offered at ${rate}/s: answered/s (shed ${r.shed} with 503), webhook p50/p99`,
        value: r.answeredPerS,
        unit: "deposits/s",
        p50Ms: r.p50,
        p99Ms: r.p99,
      });
  }
  const p50 = atGoal?.p50 ?? Number.NaN;
  const p99 = atGoal?.p99 ?? Number.NaN;
  report({
    key: "deposit-webhook",
    label: `sandbox deposit → signed PROCESSING webhook at ${RATE}/s (p50)`,
    value: p50,
    unit: "ms",
    p50Ms: p50,
    p99Ms: p99,
  });
  if (dbFloor && atGoal) {
    report({
      key: "deposit-db-cpu",
      label: `the database's CPU per deposit at ${RATE}/s (FerretDB and PostgreSQL processes)`,
      value: atGoal.dbMsPerDeposit,
      unit: "ms/deposit",
    });
    report({
      key: "deposit-db-floor-cpu",
      label: "the database's CPU per insert / find / update by _id, 16 at once (same database)",
      value: dbFloor.cpuMsPerOp,
      unit: "ms/operation",
    });
  }
  report({
    key: "deposit-webhook-floor",
    label: `bare NATS request/reply at ${RATE}/s (p50)`,
    value: floor.p50Ms,
    unit: "ms",
    p50Ms: floor.p50Ms,
    p99Ms: floor.p99Ms,
  });

  await stack.close();
  hook.close();
  await db?.stop();
  // The profiles are written as the services exit.
  if (PROFILED.length > 0 && atGoal)
    console.log(whoseCost(profileDir, atGoal, Object.keys(dbProcesses), RATE));
  const failed = failures + hook.rejected() + floor.errors > 0;
  if (PROFILED.length > 0) console.log(`profiles of ${PROFILED.join(", ")}: ${profileDir}`);
  if (failed) console.log(`service logs kept in ${stack.runDir}`);
  if (PROFILED.length === 0 && !failed) rmSync(dataDir, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
