/**
 * Cost as the data grows: the same requests against a business with 10⁴, then 10⁵ (then, when asked,
 * 10⁶) stored orders. Every service runs as its own process (as deployed) on the local database
 * (FerretDB on PostgreSQL where PostgreSQL is installed); this process seeds and measures from outside.
 *
 * History is seeded straight into the orders service's database in batches (insertMany, with the
 * transaction list's keys and marks as the store writes them), each order built by the service's own
 * builder (the fixture its tests use, over `baseDoc`): finished orders of one business, one a minute
 * back from now, mixed types, statuses and currencies, nothing pending; for each, the webhook
 * attempt that delivered it, through the dispatcher's own store; and for each completed offramp its
 * chain deposit (chain-watcher's database) and its bank payout (banking's), so every service's sweeps
 * run over history of its own.
 * Then, at each size, BENCH_GROWTH_REQUESTS requests one after another (each row stops early once it
 * has spent BENCH_GROWTH_ROW_S seconds; a request gives up after 12 s):
 *
 *   lookup        GET /pub/v2/transaction/{id} of a random stored order
 *   list p1, p2   GET /pub/v2/transactions?limit=20, then its nextCursor
 *   filtered      GET /pub/v2/transactions?limit=20&status=COMPLETED&currency=NGN
 *   create        POST /pub/v2/offramp
 *   deposit       a new offramp's sandbox deposit until GET /pub/v2/transaction/{id} reads PROCESSING
 *   deliveries    GET /pub/v2/webhook/deliveries?limit=20 (the key's newest), and ?id= one order's
 *   floor         the database's own findOne({_id}) on the same collection, from this process
 *
 * and the sweeps' cost: rows PostgreSQL reads (sequential and index fetches apart, over every table of
 * every service, from its statistics) per minute while the system is idle for BENCH_GROWTH_IDLE_S seconds —
 * all that runs then is the periodic sweeps (the orders this run created are finished first, so what
 * is measured is the cost of history, not of pending work). Finally how long orders takes to stop.
 *
 *   npm run bench:growth
 *   BENCH_GROWTH_SIZES=10000,100000,1000000 npm run bench:growth     (10⁶ takes several minutes to
 *                                                      seed on 2 busy cores with FerretDB/PostgreSQL)
 *
 * MONGODB_URI is honoured (then the sweep row is not measured: it reads PostgreSQL's statistics).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  DATA_DIR,
  ensureNatsServer,
  findPostgres,
  type PostgresServer,
  psql,
  startLocalDatabase,
  TOOLS_DIR,
} from "@ramp/devinfra";
import { type Collection, ObjectId } from "mongodb";
import { startProcessStack } from "../e2e/support/process-stack.ts";
import { sandboxChainEnv } from "../e2e/support/tokens.ts";
import type { PayoutDoc } from "../services/banking/src/payouts/payouts.ts";
import type { DepositDoc } from "../services/chain-watcher/src/deposits/deposit-store.ts";
import type { OrderDoc } from "../services/orders/src/orders/order-doc.ts";
import { insertListedOrders } from "../services/orders/src/orders/order-list-keys.ts";
import { orderFixture } from "../services/orders/test/support/order-fixture.ts";
import {
  type AttemptDoc,
  createDeliveriesStore,
} from "../services/webhook-dispatcher/src/deliveries-store.ts";
import { ORDER_BODIES } from "./support/order-bodies.ts";
import { envNumber, report } from "./support/report.ts";

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? "10000,100000").split(",").map(Number);
const REQUESTS = envNumber("BENCH_GROWTH_REQUESTS", 20);
const ROW_S = envNumber("BENCH_GROWTH_ROW_S", 30);
const IDLE_S = envNumber("BENCH_GROWTH_IDLE_S", 20);
const BATCH = 2_000;
const STATS_SETTLE_S = 12;
const ADMIN_TOKEN = "bench-admin-token-0123456789";

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

interface Row {
  what: string;
  n: number;
  p50: number;
  p99: number;
  failed: number;
}

/** Times `call` up to REQUESTS times, one after another, within the row's time budget. */
async function timed(what: string, call: (i: number) => Promise<boolean>): Promise<Row> {
  return selfTimed(what, async (i) => {
    const t = performance.now();
    const ok = await call(i);
    return { ms: performance.now() - t, ok };
  });
}

/** As `timed`, for a call that times itself (after set-up of its own that is not counted). */
async function selfTimed(
  what: string,
  call: (i: number) => Promise<{ ms: number; ok: boolean }>,
): Promise<Row> {
  const ms: number[] = [];
  let failed = 0;
  const until = performance.now() + ROW_S * 1000;
  for (let i = 0; i < REQUESTS && performance.now() < until; i++) {
    const t = performance.now();
    const r = await call(i).catch(() => ({ ms: performance.now() - t, ok: false }));
    ms.push(r.ms);
    if (!r.ok) failed++;
  }
  ms.sort((a, b) => a - b);
  return { what, n: ms.length, p50: pct(ms, 0.5), p99: pct(ms, 0.99), failed };
}

/** Finished orders of one business, one a minute back from `newest`; the i-th of all ever seeded. */
function historic(businessId: string, i: number, newest: number): OrderDoc {
  const createdAt = new Date(newest - i * 60_000);
  const kind = i % 4 === 0 ? "ON_RAMP" : "OFF_RAMP";
  return orderFixture(
    {
      _id: ObjectId.createFromTime(Math.floor(createdAt.getTime() / 1000)),
      createdAt,
      transactionType: kind,
      status: i % 10 === 0 ? "ERROR" : "COMPLETED",
      currency: i % 3 === 0 ? "GHS" : "NGN",
    },
    businessId,
  );
}

/** The webhook attempt that delivered `order`'s last status, as the dispatcher logs it. */
function attemptFor(order: OrderDoc, apiKeyId: string, i: number): AttemptDoc {
  return {
    _id: new ObjectId(),
    deliveryId: order._id.toHexString(),
    apiKeyId,
    type: "RAMP",
    subjectId: order._id.toHexString(),
    url: "https://hooks.example.test/ramp",
    attempt: 1,
    delivered: i % 20 !== 0,
    statusCode: i % 20 !== 0 ? 200 : 500,
    durationMs: 40,
    error: null,
    response: null,
    body: "{}",
    createdAt: new Date(order.createdAt.getTime() + 500),
  };
}

/** The chain deposit that paid a completed offramp, as chain-watcher stores it (its event long sent). */
function depositFor(order: OrderDoc): DepositDoc {
  const txId = `seed${order._id.toHexString()}`;
  return {
    _id: `SOLANA:${txId}:0`,
    chain: "SOLANA",
    txId,
    index: 0,
    address: `seed-address-${order._id.toHexString()}`,
    mint: "seed-mint",
    amount: "10",
    sender: "seed-sender",
    purpose: "offramp",
    ref: order._id.toHexString(),
    token: { decimals: 6, stablecoin: true, usdPrice: "1" },
    observedAt: new Date(order.createdAt.getTime() + 1_000),
    outbox: [],
  };
}

/** The bank payout that completed it, as banking stores it. */
function payoutFor(order: OrderDoc): PayoutDoc {
  const orderId = order._id.toHexString();
  return {
    _id: orderId,
    command: {
      orderId,
      bankCode: "058",
      accountNumber: "0123456789",
      accountName: "ADA OKAFOR",
      currency: "NGN",
      fiatAmount: "15000",
      narration: "seed",
    },
    status: "COMPLETED",
    reference: `seed-${orderId}`,
    reason: null,
    createdAt: new Date(order.createdAt.getTime() + 2_000),
    outbox: [],
  };
}

/**
 * Rows PostgreSQL has read so far per table (schema = service database), sequential and by index apart:
 * a sequential read of a table that grows is what history would cost.
 */
const ROWS_READ =
  "select schemaname || '.' || relname || ' (sequential)', seq_tup_read from pg_stat_user_tables union all " +
  "select schemaname || '.' || relname || ' (index)', coalesce(idx_tup_fetch, 0) from pg_stat_user_tables";
function rowsRead(binDir: string, pg: PostgresServer): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of psql(binDir, pg, ["-A", "-t", "-F", "\t", "-c", ROWS_READ]).trim().split("\n")) {
    const [table, n] = line.split("\t");
    if (table) out.set(table, Number(n));
  }
  return out;
}
/** Rows read per table between two readings, most first, and their total. */
function readsBetween(before: Map<string, number>, after: Map<string, number>) {
  const diff = [...after].map(([t, n]) => [t, n - (before.get(t) ?? 0)] as const).filter(([, n]) => n > 0);
  diff.sort((a, b) => b[1] - a[1]);
  return { total: diff.reduce((sum, [, n]) => sum + n, 0), tables: diff };
}

async function main() {
  mkdirSync(DATA_DIR, { recursive: true });
  const dataDir = mkdtempSync(join(DATA_DIR, "bench-growth-"));
  const db = process.env.MONGODB_URI ? undefined : await startLocalDatabase(dataDir);
  const pg = db && "postgres" in db ? (db.postgres as PostgresServer) : undefined;
  const pgBin = pg ? findPostgres() : undefined;
  console.log(`database: ${db?.kind ?? process.env.MONGODB_URI}`);
  const stack = await startProcessStack({
    mongoUrl: process.env.MONGODB_URI ?? db?.url ?? "",
    natsBin: ensureNatsServer(TOOLS_DIR),
    dataDir,
    adminToken: ADMIN_TOKEN,
    serviceEnv: { "chain-watcher": sandboxChainEnv, gateway: { RATE_LIMIT_PER_SECOND: "0" } },
  }).catch(async (err: unknown) => {
    await db?.stop();
    throw err;
  });
  const base = stack.gatewayUrl;
  const request = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(12_000),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  };
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  await request("PUT", "/admin/v1/rates/NGN", admin, { onRamp: 1650, offRamp: 1600 });
  const biz = await request("POST", "/admin/v1/businesses", admin, {
    name: `Growth ${randomBytes(3).toString("hex")}`,
    feeBps: 0,
  });
  const businessId = String(biz.body.id);
  const key = { "x-api-key": String(biz.body.apiKey) };
  const ordersDb = await stack.db("orders");
  const orders: Collection<OrderDoc> = ordersDb.collection<OrderDoc>("orders");
  const keyDoc = await (await stack.db("gateway"))
    .collection<{ keyId: string }>("api_keys")
    .findOne({ businessId });
  const apiKeyId = String(keyDoc?.keyId);
  // The dispatcher's log, written by its own store (which keys each attempt for its lists).
  const attempts = createDeliveriesStore(await stack.db("webhook-dispatcher"));
  const deposits = (await stack.db("chain-watcher")).collection<DepositDoc>("deposits");
  const payouts = (await stack.db("banking")).collection<PayoutDoc>("payouts");
  const newest = Date.now() - 60_000;
  const ids: ObjectId[] = [];
  let seeded = 0;
  const table: string[] = [];
  const sweeps: string[] = [];
  const line = (size: number, r: Row, floor?: Row) => {
    const cell = `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms`;
    const extra = floor ? `floor findOne({_id}) ${floor.p50.toFixed(1)} / ${floor.p99.toFixed(1)} ms` : "";
    table.push(
      `| ${size.toLocaleString("en")} | ${r.what} | ${cell} | ${r.n}${r.failed ? ` (${r.failed} failed)` : ""} | ${extra} |`,
    );
    report({
      key: `growth-${r.what.replace(/\W+/g, "-")}-${size}`,
      label: `${r.what} at ${size} orders`,
      value: r.p99,
      unit: "ms",
      p50Ms: r.p50,
      p99Ms: r.p99,
    });
  };

  try {
    for (const size of SIZES) {
      const t0 = performance.now();
      while (seeded < size) {
        const n = Math.min(BATCH, size - seeded);
        const docs = Array.from({ length: n }, (_, k) => historic(businessId, seeded + k, newest));
        await insertListedOrders(ordersDb, docs);
        await attempts.insertAttempts(docs.map((d, k) => attemptFor(d, apiKeyId, seeded + k)));
        const paid = docs.filter((d) => d.transactionType === "OFF_RAMP" && d.status === "COMPLETED");
        await deposits.insertMany(paid.map(depositFor));
        await payouts.insertMany(paid.map(payoutFor));
        for (const d of docs) if (ids.length < 5_000 || Math.random() < 0.01) ids.push(d._id);
        seeded += n;
      }
      const seedS = (performance.now() - t0) / 1000;
      console.log(`\n${size.toLocaleString("en")} orders stored (seeded in ${seedS.toFixed(1)} s)`);
      const pick = () => ids[Math.floor(Math.random() * ids.length)] as ObjectId;

      const floor = await timed(
        "findOne({_id})",
        async () => (await orders.findOne({ _id: pick() })) !== null,
      );
      // Lists last: a list the gateway gave up on may still be running in orders and in the database,
      // which would weigh on whatever came after it.
      const rows: Row[] = [
        await timed("lookup", async () => {
          const r = await request("GET", `/pub/v2/transaction/${pick().toHexString()}`, key);
          return r.status === 200;
        }),
        await timed("create offramp", async () => {
          const r = await request("POST", "/pub/v2/offramp", key, ORDER_BODIES.offramp);
          return r.status === 200 || r.status === 201;
        }),
        // A new offramp (not timed), then its sandbox deposit until the order reads PROCESSING: the
        // deposit's path through chain-watcher and orders, polled every 10 ms from outside.
        await selfTimed("deposit → PROCESSING", async () => {
          const created = await request("POST", "/pub/v2/offramp", key, ORDER_BODIES.offramp);
          const id = String(created.body.id ?? "");
          const t = performance.now();
          const deposit = await request("POST", `/sandbox/v2/offramp/${id}/token-deposit`, key, {});
          while (deposit.status === 202 && performance.now() - t < 10_000) {
            const r = await request("GET", `/pub/v2/transaction/${id}`, key);
            if (r.body.status === "PROCESSING" || r.body.status === "COMPLETED")
              return { ms: performance.now() - t, ok: true };
            await new Promise((done) => setTimeout(done, 10));
          }
          return { ms: performance.now() - t, ok: false };
        }),
        await timed("webhook deliveries, key", async () => {
          const r = await request("GET", "/pub/v2/webhook/deliveries?limit=20", key);
          return r.status === 200 && Array.isArray(r.body) && r.body.length === 20;
        }),
        await timed("webhook deliveries, one order", async () => {
          const r = await request(
            "GET",
            `/pub/v2/webhook/deliveries?limit=20&id=${pick().toHexString()}`,
            key,
          );
          return r.status === 200 && Array.isArray(r.body) && r.body.length === 1;
        }),
      ];
      // The orders just created wait for a deposit, which the expiry sweep looks at: finished here, so
      // the idle row below reads what history costs, not what this run left pending.
      await orders.updateMany({ businessId, status: "INIT" }, { $set: { status: "ERROR" } });
      if (pg && pgBin) {
        // PostgreSQL counts a connection's reads when it goes idle, up to 10 s later: the requests
        // above settle first, so the window holds the sweeps' reads alone.
        await new Promise((r) => setTimeout(r, STATS_SETTLE_S * 1000));
        const before = rowsRead(pgBin, pg);
        await new Promise((r) => setTimeout(r, IDLE_S * 1000));
        const { total, tables } = readsBetween(before, rowsRead(pgBin, pg));
        const perMin = (total / IDLE_S) * 60;
        console.log(
          `rows read while idle, by table: ${tables.map(([t, n]) => `${t} ${n}`).join(", ") || "none"}`,
        );
        sweeps.push(
          `| ${size.toLocaleString("en")} | sweeps, idle | ${perMin.toFixed(0)} rows read/min | ${IDLE_S} s | |`,
        );
        report({
          key: `growth-sweep-rows-${size}`,
          label: `rows read per minute by sweeps at ${size} orders`,
          value: perMin,
          unit: "rows/min",
        });
      }
      rows.push(
        await timed("list page 1", async () => {
          const r = await request("GET", "/pub/v2/transactions?limit=20", key);
          return r.status === 200 && Array.isArray(r.body.data) && r.body.data.length === 20;
        }),
      );
      const first = await request("GET", "/pub/v2/transactions?limit=20", key);
      const cursor = String(first.body.nextCursor ?? "");
      rows.push(
        await timed("list page 2", async () => {
          const r = await request("GET", `/pub/v2/transactions?limit=20&cursor=${cursor}`, key);
          return r.status === 200 && Array.isArray(r.body.data) && r.body.data.length === 20;
        }),
        await timed("filtered list", async () => {
          const r = await request("GET", "/pub/v2/transactions?limit=20&status=COMPLETED&currency=NGN", key);
          return r.status === 200 && Array.isArray(r.body.data) && r.body.data.length === 20;
        }),
      );
      for (const r of rows) line(size, r, r.what === "lookup" ? floor : undefined);
      table.push(...sweeps.splice(0));
      console.log(`seeding ${size.toLocaleString("en")}: ${seedS.toFixed(1)} s`);
    }
    // Give lists the gateway gave up on time to finish, then time a stop on its own.
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const t = performance.now();
    await stack.service("orders").stop();
    table.push(
      `| ${seeded.toLocaleString("en")} | orders service stop | ${(performance.now() - t).toFixed(0)} ms | 1 | |`,
    );
  } finally {
    console.log(`\n| stored orders | what | p50 / p99 | requests | floor |\n|---|---|---|---|---|`);
    console.log(table.join("\n"));
    await stack.close();
    await db?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
