import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, apiClient } from "./fault/api-client.ts";
import { faultStackOptions } from "./fault/fault-stack.ts";
import { type OtlpReceiver, otlpReceiver, type ReceivedSpan, SpanKinds } from "./support/otlp-receiver.ts";
import { type ProcessStack, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN, eventually } from "./support/stack.ts";
import { BASE_USDC, ETH_USDC, EVM_RECIPIENT } from "./support/tokens.ts";
import { type Receiver, receiver } from "./support/webhook-receiver.ts";

/**
 * OpenTelemetry across processes: every service exports its spans with OTLP/HTTP to a collector the
 * test runs, and one onramp paid in the sandbox is followed from the gateway's HTTP request through
 * RPCs, JetStream messages and outboxes to the signed webhook POSTs, all one trace; so is an offramp.
 */
let stack: ProcessStack;
let collector: OtlpReceiver;
let hooks: Receiver;
beforeAll(async () => {
  collector = await otlpReceiver();
  hooks = await receiver();
  stack = await startProcessStack(
    faultStackOptions({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: "200" },
    }),
  );
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await hooks?.close();
  await collector?.close();
});

/** Every span of `traceId` whose parent is not among them: the roots of what was received. */
const orphans = (trace: ReceivedSpan[]) => {
  const ids = new Set(trace.map((s) => s.spanId));
  return trace.filter((s) => !ids.has(s.parentSpanId));
};

let api: ApiClient;
beforeAll(async () => {
  const admin = apiClient(stack.gatewayUrl, { authorization: `Bearer ${ADMIN_TOKEN}` });
  expect((await admin.put("/admin/v1/rates/NGN", { onRamp: 1650, offRamp: 1600 })).status).toBe(200);
  const created = await admin.post("/admin/v1/businesses", { name: "Traced Co" });
  expect(created.status).toBe(201);
  const biz = created.body as { apiKey: string; webhookSecret: string };
  hooks.setSecret(biz.webhookSecret);
  api = apiClient(stack.gatewayUrl, { "x-api-key": biz.apiKey });
  expect((await api.patch("/pub/v2/webhook", { rampWebhookURL: `${hooks.url}/ramp` })).status).toBe(200);
}, 60_000);

/**
 * Pays order `id` through `depositPath`, waits for its PROCESSING and COMPLETED webhooks, and returns
 * the trace the deposit request started once every span of it arrived, after checking it is connected:
 * one root (the gateway's server span), every other span's parent in the trace, each consumer under
 * the producer of its message, each RPC server under its client, and both webhook POSTs in it.
 */
async function followDeposit(id: string, depositPath: string): Promise<ReceivedSpan[]> {
  expect((await api.post(depositPath, {})).status).toBe(202);
  const statuses = await eventually(async () => {
    const got = hooks.got.filter((g) => g.body.id === id).map((g) => g.body.status as string);
    return got.includes("COMPLETED") ? got : undefined;
  }, 60_000);
  expect(statuses).toEqual(["PROCESSING", "COMPLETED"]);

  // The deposit request's server span names the trace; everything the deposit caused belongs to it.
  const root = await eventually(async () =>
    collector.spans.find((s) => s.kind === SpanKinds.server && s.attributes["url.path"] === depositPath),
  );
  expect(root).toMatchObject({ service: "gateway", parentSpanId: "" });
  expect(root.name).toMatch(/^POST \/sandbox\/v2\/.+-deposit$/);
  const traceOf = () => collector.spans.filter((s) => s.traceId === root.traceId);
  const posts = (t: ReceivedSpan[]) =>
    t.filter((s) => s.service === "webhook-dispatcher" && s.kind === SpanKinds.client);
  // Spans reach the collector in batches per process; wait until both deliveries' and their causes' are in.
  const trace = await eventually(async () => {
    const t = traceOf();
    return posts(t).length >= 2 && orphans(t).length === 1 ? t : undefined;
  }, 30_000).catch(() => traceOf());

  expect(collector.rejected).toEqual([]);
  expect(orphans(trace).map((s) => `${s.service} ${s.name}`)).toEqual([`${root.service} ${root.name}`]);
  const delivered = posts(trace);
  expect(delivered).toHaveLength(2);
  for (const post of delivered) {
    expect(post.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.response.status_code": 200,
      "server.port": Number(new URL(hooks.url).port),
    });
    // The POST sits under the dispatcher's consumer span of the queued delivery.
    const parent = trace.find((s) => s.spanId === post.parentSpanId);
    expect(parent).toMatchObject({ service: "webhook-dispatcher", kind: SpanKinds.consumer });
  }
  // A consumer's parent is the producer of its message, in another service or its own.
  for (const consumer of trace.filter((s) => s.kind === SpanKinds.consumer)) {
    const parent = trace.find((s) => s.spanId === consumer.parentSpanId);
    expect(parent?.kind, `${consumer.service} ${consumer.name}`).toBe(SpanKinds.producer);
  }
  // And an RPC server's parent is the client span that called it.
  for (const server of trace.filter((s) => s.kind === SpanKinds.server && s !== root)) {
    const parent = trace.find((s) => s.spanId === server.parentSpanId);
    expect(parent?.kind, `${server.service} ${server.name}`).toBe(SpanKinds.client);
  }
  return trace;
}

const kindsOf = (trace: ReceivedSpan[], service: string) =>
  new Set(trace.filter((s) => s.service === service).map((s) => s.kind));

describe("tracing", () => {
  it("follows an onramp from the gateway request to its webhook deliveries as one connected trace", async () => {
    const order = await api.post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "ETHEREUM",
      mint: ETH_USDC,
      recipient: EVM_RECIPIENT,
      amount: 7,
    });
    expect(order.status).toBe(201);
    const { id } = order.body as { id: string };
    const trace = await followDeposit(id, `/sandbox/v2/onramp/${id}/fiat-deposit`);
    expect(new Set(trace.map((s) => s.service))).toEqual(
      new Set(["gateway", "orders", "banking", "chain-watcher", "webhook-dispatcher"]),
    );
    // Each hop is there with its kind: RPCs client → server, messages producer → consumer.
    expect(kindsOf(trace, "gateway")).toEqual(new Set([SpanKinds.server, SpanKinds.client]));
    expect(kindsOf(trace, "banking")).toContain(SpanKinds.server);
    expect(kindsOf(trace, "banking")).toContain(SpanKinds.producer);
    expect(kindsOf(trace, "orders")).toEqual(
      new Set([SpanKinds.server, SpanKinds.client, SpanKinds.producer, SpanKinds.consumer]),
    );
    expect(kindsOf(trace, "chain-watcher")).toEqual(new Set([SpanKinds.producer, SpanKinds.consumer]));
  }, 150_000);

  it("follows an offramp whose token deposit the watcher records into the same trace", async () => {
    const order = await api.post("/pub/v2/offramp", {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      amount: 4,
    });
    expect(order.status).toBe(201);
    const { id } = order.body as { id: string };
    const trace = await followDeposit(id, `/sandbox/v2/offramp/${id}/token-deposit`);
    // The deposit event is published by the watcher under the sandbox request that made the transfer.
    const observed = trace.filter((s) => s.service === "chain-watcher" && s.kind === SpanKinds.producer);
    expect(observed.length).toBeGreaterThan(0);
    expect(new Set(trace.map((s) => s.service))).toEqual(
      new Set(["gateway", "orders", "banking", "chain-watcher", "webhook-dispatcher"]),
    );
  }, 150_000);
});
