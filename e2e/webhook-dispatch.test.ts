import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  Events,
  FIRST_ANNOUNCED_SEQUENCE,
  type OrderStatus,
  Rpc,
  sampleTransaction,
  WebhookWork,
} from "@ramp/contracts";
import { callRpc, ensureStreams, publish, type ServiceHandle } from "@ramp/runtime";
import {
  loadWebhookDispatcherConfig,
  startWebhookDispatcher,
  type WebhookDispatcherConfig,
} from "@ramp/webhook-dispatcher";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";

/**
 * The dispatcher as an operator runs it: replicas sharing one queue, receivers of different speeds,
 * and the database it writes to watched command by command.
 */

// What orders announces, in order: an order's INIT (sequence 0) never is.
const STATUSES: OrderStatus[] = ["PROCESSING", "COMPLETED"];
const WRITE_COMMANDS = new Set(["insert", "update", "delete", "findAndModify", "bulkWrite"]);

interface Hook {
  url: string;
  /** Order id → statuses in the order they arrived. */
  got: Map<string, string[]>;
  /** Order id → when each of its POSTs arrived (ms). */
  at: Map<string, number[]>;
  /** Order ids whose next POST is answered 500 (once each). */
  failNext: Set<string>;
  open: number;
  maxOpen: number;
  /** Answers every held request and stops holding new ones. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A receiver that answers 200, after `delayMs` when given, or holds each request open until release()
 * when `hold` is set.
 */
async function hook(hold = false, delayMs = 0): Promise<Hook> {
  const got = new Map<string, string[]>();
  const held: ServerResponse[] = [];
  let holding = hold;
  const h: Hook = {
    url: "",
    got,
    at: new Map(),
    failNext: new Set(),
    open: 0,
    maxOpen: 0,
    release() {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(200).end("ok");
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    h.open++;
    h.maxOpen = Math.max(h.maxOpen, h.open);
    res.on("close", () => h.open--);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string; status: string };
      got.set(body.id, [...(got.get(body.id) ?? []), body.status]);
      h.at.set(body.id, [...(h.at.get(body.id) ?? []), Date.now()]);
      if (h.failNext.delete(body.id)) res.writeHead(500).end("not now");
      else if (holding) held.push(res);
      else if (delayMs > 0) setTimeout(() => res.writeHead(200).end("ok"), delayMs);
      else res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return h;
}

const run = randomBytes(3).toString("hex");
let n = 0;
const orderId = () => `${run}${(++n).toString(16).padStart(18, "0")}`;

async function emit(nc: NatsConnection, id: string, status: OrderStatus, webhookURL: string | null) {
  const { js } = await ensureStreams(nc);
  const order = sampleTransaction({ id, status, signature: "", accountName: "ACME(Pay NGN 16000)" });
  const sequence = STATUSES.indexOf(status) + FIRST_ANNOUNCED_SEQUENCE;
  await publish(
    js,
    Events.orderStatusChanged,
    { businessId: "b1", apiKeyId: "key-dispatch", webhookURL, sequence, order },
    `${id}:${status}`,
  );
}

describe("webhook dispatcher under load (real NATS and database)", () => {
  let stack: Stack;
  let nc: NatsConnection;
  let ordersNc: NatsConnection;
  const running: Array<ServiceHandle<WebhookDispatcherConfig>> = [];
  const hooks: Hook[] = [];
  let writes = 0;

  const dispatcher = async (env: Record<string, string>) => {
    const uri = inject("mongoUrl");
    const svc = await startWebhookDispatcher(
      loadWebhookDispatcherConfig({
        ...stack.natsEnv("webhook-dispatcher"),
        // Every command the driver sends is reported, so the test counts the dispatcher's writes.
        MONGODB_URI: `${uri}${uri.includes("?") ? "&" : "?"}monitorCommands=true`,
        MONGODB_DATABASE: `t${stack.id}_webhook_dispatcher`,
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
        WEBHOOK_ALLOW_PRIVATE: "true",
        WEBHOOK_RETRY_SCHEDULE: "0,1,1",
        ...env,
      }),
    );
    svc.deps.db.client.on("commandStarted", (e) => {
      if (WRITE_COMMANDS.has(e.commandName)) writes++;
    });
    running.push(svc);
    return svc;
  };

  beforeAll(async () => {
    stack = await startStack({ services: [] });
    // Configured as the gateway would, fed as orders would.
    nc = await stack.connectAs("gateway");
    ordersNc = await stack.connectAs("orders");
  });
  afterAll(async () => {
    for (const svc of running) await svc.stop();
    await nc?.drain();
    await ordersNc?.drain();
    await stack?.close();
    await Promise.all(hooks.map((h) => h.close()));
  });

  it("two replicas deliver every status once and in order, with fewer database writes than deliveries", async () => {
    const replicas = [await dispatcher({}), await dispatcher({})];
    const h = await hook();
    hooks.push(h);
    await callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId: "key-dispatch", body: { rampWebhookURL: h.url } });
    writes = 0;
    const ids = Array.from({ length: 40 }, orderId);
    for (const status of STATUSES) await Promise.all(ids.map((id) => emit(ordersNc, id, status, null)));
    await eventually(
      async () => (ids.every((id) => h.got.get(id)?.length === STATUSES.length) ? true : undefined),
      60_000,
    );
    for (const id of ids) expect(h.got.get(id)).toEqual(STATUSES);
    // The delivery log is written in batches, by both replicas, and is complete soon after.
    for (const id of ids.slice(0, 3)) {
      const log = await eventually(async () => {
        const l = await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: "key-dispatch", id, limit: 10 });
        return l.length === STATUSES.length ? l : undefined;
      });
      expect(log.every((a) => a.delivered && a.attempt === 1)).toBe(true);
    }
    await Promise.all(replicas.map((r) => r.stop()));
    running.length = 0;
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThanOrEqual(ids.length * STATUSES.length);
  });

  it("a receiver that never answers occupies only its own slots; the others are served meanwhile", async () => {
    await dispatcher({ WEBHOOK_CONCURRENCY: "4", WEBHOOK_ENDPOINT_CONCURRENCY: "2" });
    const slow = await hook(true);
    const fast = await hook();
    hooks.push(slow, fast);
    const slowIds = Array.from({ length: 12 }, orderId);
    const fastIds = Array.from({ length: 12 }, orderId);
    for (const id of slowIds) await emit(ordersNc, id, "PROCESSING", slow.url);
    for (const id of fastIds) await emit(ordersNc, id, "PROCESSING", fast.url);
    await eventually(async () => (fastIds.every((id) => fast.got.has(id)) ? true : undefined), 30_000);
    // Everything for the fast receiver arrived while the slow one still holds its first requests.
    expect(slow.maxOpen).toBeLessThanOrEqual(2);
    expect(slow.got.size).toBeLessThanOrEqual(2);
    slow.release();
    await eventually(async () => (slowIds.every((id) => slow.got.has(id)) ? true : undefined), 30_000);
    for (const id of slowIds) expect(slow.got.get(id)).toEqual(["PROCESSING"]);
  });

  it("a stop hands back at once what waits behind a slow receiver, and the next replica delivers it", async () => {
    for (const svc of running.splice(0)) await svc.stop();
    const first = await dispatcher({ WEBHOOK_CONCURRENCY: "4", WEBHOOK_ENDPOINT_CONCURRENCY: "2" });
    const slow = await hook(false, 4_000);
    hooks.push(slow);
    const ids = Array.from({ length: 16 }, orderId);
    for (const id of ids) await emit(ordersNc, id, "PROCESSING", slow.url);
    // Two attempts under way, the others waiting in this replica's memory or in the work queue: each
    // pair takes 4 s, so working them all off would take far longer than a stop may.
    await eventually(async () => (slow.open === 2 ? true : undefined), 15_000);
    const stopping = Date.now();
    await running.splice(0)[0]?.stop();
    // Only the two attempts under way were waited for (a stop that works off the queue takes its whole
    // 10 s per part).
    expect(Date.now() - stopping).toBeLessThan(9_000);
    expect(first.deps.nc.isClosed()).toBe(true);
    await dispatcher({});
    await eventually(async () => (ids.every((id) => slow.got.has(id)) ? true : undefined), 60_000);
    for (const id of ids) expect(slow.got.get(id)).toEqual(["PROCESSING"]);
  }, 120_000);

  it("a first attempt goes straight from its event; a failed one is retried from the queue after its pause", async () => {
    for (const svc of running.splice(0)) await svc.stop();
    const svc = await dispatcher({ WEBHOOK_RETRY_SCHEDULE: "0,2" });
    const h = await hook();
    hooks.push(h);
    const ids = Array.from({ length: 8 }, orderId);
    const failing = ids[0]!;
    h.failNext.add(failing);
    // The work queue is the dispatcher's own: only its connection may read it.
    const jsm = await jetstreamManager(svc.deps.nc);
    const queued = async () => (await jsm.streams.info(WebhookWork.stream.name)).state.last_seq;
    const before = await queued();
    for (const id of ids) await emit(ordersNc, id, "PROCESSING", h.url);
    await eventually(async () => (ids.every((id) => h.got.has(id)) ? true : undefined), 30_000);
    const [first, second] = await eventually(async () => {
      const at = h.at.get(failing) ?? [];
      return at.length === 2 ? at : undefined;
    }, 30_000);
    // The schedule's pause (2 s) between the failed attempt and the next, however the delivery got there.
    expect(second! - first!).toBeGreaterThanOrEqual(1_900);
    for (const id of ids)
      expect(h.got.get(id)).toEqual(id === failing ? ["PROCESSING", "PROCESSING"] : ["PROCESSING"]);
    // Only the retry went through the work queue: every first attempt was made from its event.
    expect((await queued()) - before).toBe(1);
    const log = await eventually(async () => {
      const l = await callRpc(nc, Rpc.webhookDeliveries, {
        apiKeyId: "key-dispatch",
        id: failing,
        limit: 10,
      });
      return l.length === 2 ? l : undefined;
    });
    expect(log.map((a) => [a.attempt, a.delivered, a.statusCode]).sort()).toEqual([
      [1, false, 500],
      [2, true, 200],
    ]);
  });
});
