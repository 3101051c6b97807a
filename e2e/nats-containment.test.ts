import { AckPolicy, DeliverPolicy, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  AppError,
  Commands,
  Currency,
  callersOf,
  Events,
  MESSAGING,
  RateType,
  Rpc,
  type RpcContract,
  SERVICE_NAMES,
  type ServiceName,
  usesSharedStreams,
  WebhookWork,
} from "@ramp/contracts";
import { eventually, sleep, startTestNats, type TestNats } from "@ramp/devinfra/testing";
import {
  callRpc,
  consume,
  createLogger,
  ensureStreams,
  messagesHandled,
  publishTraced,
  type RunningConsumer,
  rpcRequests,
  serveRpc,
} from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

/**
 * A service's credentials must not reach further through the server than its permissions reach:
 * nats-server delivers a push consumer's messages to any `deliver_subject`, and answers a JetStream API
 * request to any reply subject, without checking either against the requester's permissions. Every
 * service tries exactly that against every other service's request subjects and every JetStream subject;
 * nothing may arrive at a handler or in a stream.
 */

const log = createLogger("containment-test", "silent");
const served = SERVICE_NAMES.flatMap((svc) => MESSAGING[svc].serves.map((contract) => ({ svc, contract })));
/** A concrete subject for each served contract (`…export.next.*` is answered per instance). */
const concrete = (c: RpcContract) => c.subject.replace(/\*$/, "probe");
const streamSubjects = [
  ...Object.values(Events).map((e) => e.subject),
  ...Object.values(Commands).map((c) => c.subject),
  WebhookWork.deliver.subject,
];

let nats: TestNats;
const conns = new Map<ServiceName, NatsConnection>();
const consumers: RunningConsumer[] = [];
const enc = (text: string) => new TextEncoder().encode(text);
/** Handlers that hold their answer back, so a test can aim at a caller's pending inbox. */
const holding = new Set<string>();

/** What the services' consumers made of stream messages: refused (unsigned) or taken in (acked or not). */
async function consumed(): Promise<{ taken: number; refused: number }> {
  let taken = 0;
  let refused = 0;
  for (const { labels, value } of (await messagesHandled.get()).values) {
    if (labels.outcome === "refused") refused += value;
    else taken += value;
  }
  return { taken, refused };
}

/** A well-formed rate answer nobody computed: what a forger would want a caller to price an order with. */
const forgedRates = () => {
  const rate = {
    rate: 1,
    type: RateType.options[0],
    id: "forged",
    baseCurrency: Currency.options[0],
    targetCurrency: Currency.options[0],
    createdAt: new Date().toISOString(),
  };
  return JSON.stringify({ ok: true, data: { onRampRate: rate, offRampRate: rate } });
};

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  for (const svc of SERVICE_NAMES) conns.set(svc, await nats.connectAs(svc));
  await ensureStreams(conns.get("orders") as NatsConnection);
  const dispatcher = await jetstreamManager(conns.get("webhook-dispatcher") as NatsConnection);
  await dispatcher.streams.add({ name: WebhookWork.stream.name, subjects: [...WebhookWork.stream.subjects] });
  // Every bucket made by its owner, with one key to reflect.
  for (const svc of SERVICE_NAMES) {
    for (const bucket of MESSAGING[svc].buckets) {
      const kv = await new Kvm(conns.get(svc) as NatsConnection).create(bucket);
      await kv.put("probe", JSON.stringify({ ref: "forged", ok: true, data: { forged: true } }));
    }
  }
  // Every durable consumed by its service, as the service consumes it, and one signed message each.
  for (const svc of SERVICE_NAMES) {
    const nc = conns.get(svc) as NatsConnection;
    for (const { contract, durable } of MESSAGING[svc].consumes) {
      consumers.push(await consume(nc, { contract, durable, log, handler: async () => undefined }));
    }
  }
  for (const svc of SERVICE_NAMES.filter(usesSharedStreams)) {
    const { js } = await ensureStreams(conns.get(svc) as NatsConnection);
    for (const { subject } of MESSAGING[svc].publishes)
      await publishTraced(js, subject, enc("{}"), `c:${subject}`, undefined);
  }
  for (const { svc, contract } of served) {
    const instance = contract.subject.endsWith("*") ? concrete(contract) : undefined;
    serveRpc(
      conns.get(svc) as NatsConnection,
      contract,
      svc,
      log,
      async () => {
        while (holding.has(contract.subject)) await sleep(50);
        return {} as never;
      },
      instance,
    );
  }
  await Promise.all([...conns.values()].map((nc) => nc.flush()));
}, 120_000);

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await Promise.all([...conns.values()].map((nc) => nc.close()));
  await nats?.stop();
});

/**
 * What each subject's handlers made of the messages they received, from the services' own counter:
 * REFUSED (not from a caller) or anything else (taken in: validated, then answered or rejected).
 */
async function outcomes(): Promise<{ taken: Record<string, number>; refused: number }> {
  const taken: Record<string, number> = {};
  let refused = 0;
  for (const { labels, value } of (await rpcRequests.get()).values) {
    if (labels.outcome === "REFUSED") refused += value;
    else taken[String(labels.subject)] = (taken[String(labels.subject)] ?? 0) + value;
  }
  return { taken, refused };
}

describe("NATS containment: the server delivers a service's bytes only where the service may send them", () => {
  it("a legitimate caller still reaches every handler (the control: this test sees a delivery when there is one)", async () => {
    rpcRequests.reset();
    for (const { contract } of served) {
      const caller = callersOf(contract.subject)[0];
      if (!caller) continue;
      // An empty request: the handler takes it in and answers VALIDATION (or the stub's empty answer).
      await callRpc(
        conns.get(caller) as NatsConnection,
        contract,
        {} as never,
        undefined,
        5_000,
        concrete(contract),
      ).catch((e: unknown) => {
        if (e instanceof AppError && e.code === "UNAVAILABLE") throw e;
      });
      expect((await outcomes()).taken[contract.subject], contract.subject).toBeGreaterThan(0);
    }
    expect((await outcomes()).refused).toBe(0);
  });

  it("every service's push consumers, JetStream API replies and pull requests aimed at others reach nothing", async () => {
    // The owners' own signed messages are taken (the control for the stream side).
    await eventually(async () => ((await consumed()).taken >= 6 ? true : undefined), 10_000);
    expect((await consumed()).refused).toBe(0);
    messagesHandled.reset();
    rpcRequests.reset();
    const targets = [...served.map(({ contract }) => concrete(contract)), ...streamSubjects];
    const tried: Record<string, number> = {};
    for (const attacker of SERVICE_NAMES) {
      const nc = conns.get(attacker) as NatsConnection;
      const jsm = await jetstreamManager(nc);
      const m = MESSAGING[attacker];
      const buckets = [...m.buckets, ...m.follows.map((f) => f.bucket)];
      let n = 0;
      for (const bucket of buckets) {
        for (const [i, target] of targets.entries()) {
          // A push consumer delivering the bucket's writes onto the target, plain and as the queue group
          // its handlers share.
          const owner = served.find(({ contract }) => concrete(contract) === target)?.svc;
          for (const group of [undefined, owner]) {
            await jsm.consumers
              .add(`KV_${bucket}`, {
                name: `x-${attacker}-${i}-${group ?? "plain"}`,
                deliver_subject: target,
                ...(group ? { deliver_group: group } : {}),
                ack_policy: AckPolicy.None,
                deliver_policy: DeliverPolicy.All,
                filter_subject: `$KV.${bucket}.>`,
              })
              .then(
                () => n++,
                () => undefined, // refused by the server: contained too
              );
          }
          // JetStream API answers, reflected onto the target: the stored bytes raw, and a JSON info.
          nc.publish(`$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.probe`, "", { reply: target });
          nc.publish(`$JS.API.STREAM.INFO.KV_${bucket}`, "", { reply: target });
          n += 2;
        }
      }
      // Its own durables' messages, pulled onto the target.
      for (const { contract, durable } of m.consumes) {
        for (const target of targets) {
          nc.publish(
            `$JS.API.CONSUMER.MSG.NEXT.${contract.stream}.${durable}`,
            JSON.stringify({ batch: 1 }),
            {
              reply: target,
            },
          );
          n++;
        }
      }
      await nc.flush();
      tried[attacker] = n;
    }
    // Writes after the consumers exist, so each delivers something new too.
    for (const svc of SERVICE_NAMES) {
      for (const bucket of MESSAGING[svc].buckets) {
        await (await new Kvm(conns.get(svc) as NatsConnection).open(bucket)).put("probe", '{"ok":true}');
      }
    }
    await sleep(2_000);
    for (const svc of SERVICE_NAMES) expect(tried[svc], `${svc} tried nothing`).toBeGreaterThan(0);
    const { taken, refused } = await outcomes();
    expect(taken).toEqual({});
    expect(refused).toBeGreaterThan(0);
    // The server does store JetStream API answers aimed at stream subjects; no consumer takes one.
    const streams = await consumed();
    expect(streams.refused).toBeGreaterThan(0);
    expect(streams.taken).toBe(0);
  });

  it("an answer reflected onto a caller's pending inbox is refused; the caller never takes forged data", async () => {
    // orders asks pricing for a rate; pricing holds its answer. chain-watcher (which learns orders'
    // inbox prefix from orders' own requests to it) aims a DIRECT.GET of its bucket at that inbox.
    const { ratesGet } = Rpc;
    holding.add(ratesGet.subject);
    let reply = "";
    const pricing = conns.get("pricing") as NatsConnection;
    const spy = pricing.subscribe(ratesGet.subject);
    await pricing.flush();
    const pending = callRpc(
      conns.get("orders") as NatsConnection,
      ratesGet,
      { businessId: "b1", currency: "NGN" },
      undefined,
      5_000,
    ).then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    );
    // The spy also sees what the earlier test's consumers still deliver; orders' request is the one
    // with orders' inbox.
    for await (const msg of spy) {
      if (!msg.reply?.startsWith("_INBOX.orders.")) continue;
      reply = msg.reply;
      break;
    }
    const watcher = conns.get("chain-watcher") as NatsConnection;
    const bucket = MESSAGING["chain-watcher"].buckets[0] as string;
    await (await new Kvm(watcher).open(bucket)).put("rates", forgedRates());
    watcher.publish(`$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.rates`, "", { reply });
    const outcome = await pending;
    holding.delete(ratesGet.subject);
    expect(outcome).toMatchObject({ error: { code: "UNAVAILABLE" } });
  });
});
