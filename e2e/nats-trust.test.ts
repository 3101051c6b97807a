import { randomBytes } from "node:crypto";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { ChangeFeeds, type DepositObserved, Events, MESSAGING, Rpc, TransactionDto } from "@ramp/contracts";
import { sleep } from "@ramp/devinfra/testing";
import { callRpc, createLogger, ensureStreams, followChangeFeed, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type ServiceName, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, baseOfframpBody, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

let stack: Stack;
let apiKey: string;
beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  apiKey = (await stack.createBusiness("Trust Co")).apiKey;
});
afterAll(async () => stack?.close());

async function newOfframp(): Promise<TransactionDto> {
  const res = await stack.client(apiKey).post("/pub/v2/offramp", baseOfframpBody());
  expect(res.status).toBe(201);
  return TransactionDto.parse(res.body);
}

/** A deposit nobody made: exactly what a chain-watcher would report for the order's address. */
const forged = (tx: TransactionDto): DepositObserved => ({
  chain: "BASE",
  txId: `0x${randomBytes(32).toString("hex")}`,
  index: 0,
  address: tx.address,
  mint: BASE_USDC,
  amount: "10",
  sender: EVM_RECIPIENT,
  purpose: "offramp",
  ref: tx.id,
  token: { decimals: 6, stablecoin: true, usdPrice: "1" },
});

async function publishAs(service: ServiceName, ev: DepositObserved): Promise<void> {
  const nc = await stack.connectAs(service);
  try {
    const { js } = await ensureStreams(nc);
    await publish(js, Events.depositObserved, ev, `forged:${ev.txId}`);
  } finally {
    await nc.close();
  }
}

const status = async (id: string): Promise<string> =>
  (await stack.client(apiKey).get(`/pub/v2/transaction/${id}`)).body.status;

describe("NATS is a trust boundary", () => {
  it("refuses a connection without credentials", async () => {
    await expect(connect({ servers: stack.natsUrl })).rejects.toThrow(/Authorization Violation/i);
  });

  it("refuses banking's forged chain deposit, and the offramp stays INIT with no payout", async () => {
    const tx = await newOfframp();
    await expect(publishAs("banking", forged(tx))).rejects.toThrow(/permissions violation/i);
    await sleep(3_000);
    expect(await status(tx.id)).toBe("INIT");
    expect(await stack.fundsRecorded(tx.id)).toBe(0);
    expect(await (await stack.db("banking")).collection("payouts").countDocuments({ orderId: tx.id })).toBe(
      0,
    );
  });

  it("accepts the same deposit from its owner, chain-watcher, and the offramp moves on", async () => {
    const tx = await newOfframp();
    await publishAs("chain-watcher", forged(tx));
    const moved = await eventually(async () => {
      const s = await status(tx.id);
      return s === "INIT" ? undefined : s;
    });
    expect(["PROCESSING", "COMPLETED"]).toContain(moved);
  });

  it("lets the gateway watch pricing's change feed, and refuses its write to it", async () => {
    const nc = await stack.connectAs("gateway");
    const changed: string[] = [];
    let live = false;
    const feed = followChangeFeed(nc, ChangeFeeds.pricing, createLogger("trust-test", "silent"), {
      changed: (kind, id) => changed.push(`${kind}.${id}`),
      live: (next) => {
        live = next;
      },
    });
    try {
      await eventually(() => (live ? true : undefined));
      await stack.setRate("KES", 130, 125);
      await eventually(() => (changed.includes("market-rate.KES") ? true : undefined));
      const js = jetstream(nc);
      await expect(js.publish(`$KV.${ChangeFeeds.pricing.bucket}.market-rate.KES`, "forged")).rejects.toThrow(
        /permissions violation/i,
      );
    } finally {
      await feed.stop();
      await nc.close();
    }
  });
});

/**
 * The moves found against the server's permissions: a service makes nats-server carry bytes from its own
 * KV bucket onto another service's subject, by a push consumer's deliver subject or a JetStream API
 * reply subject. Each is refused by the receiving side (see contracts' callers.ts and signing.ts).
 */
describe("a service's own bucket cannot carry its bytes onto another service's subjects", () => {
  const put = async (service: ServiceName, key: string, value: unknown) => {
    const nc = await stack.connectAs(service);
    const bucket = MESSAGING[service].buckets[0] as string;
    await (await new Kvm(nc).open(bucket)).put(key, JSON.stringify(value));
    return { nc, bucket };
  };
  const pushOnto = async (service: ServiceName, target: string, group: string, value: unknown) => {
    const nc = await stack.connectAs(service);
    const bucket = MESSAGING[service].buckets[0] as string;
    const kv = await new Kvm(nc).create(bucket);
    const jsm = await jetstreamManager(nc);
    await jsm.consumers.add(`KV_${bucket}`, {
      name: `push-${randomBytes(4).toString("hex")}`,
      deliver_subject: target,
      deliver_group: group,
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.New,
    });
    await kv.put(`k${randomBytes(4).toString("hex")}`, JSON.stringify(value));
    await sleep(3_000);
    await nc.close();
  };
  const newOnramp = async () => {
    const res = await stack.client(apiKey).post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      recipient: EVM_RECIPIENT,
      amount: 10,
    });
    expect(res.status).toBe(201);
    return TransactionDto.parse(res.body);
  };

  it("gateway → banking's sandbox fiat deposit: the onramp stays INIT", async () => {
    const tx = await newOnramp();
    await pushOnto("gateway", Rpc.sandboxFiatDeposit.subject, "banking", { ref: tx.id });
    expect(await status(tx.id)).toBe("INIT");
  });

  it("gateway → a fiat deposit event stored on banking's subject (a reflected DIRECT.GET): the onramp stays INIT", async () => {
    const tx = await newOnramp();
    const deposit = {
      ref: tx.id,
      reference: `forged-${tx.id}`,
      accountNumber: tx.accountNumber,
      currency: "NGN",
      fiatAmount: String(tx.fiatAmount),
      payerName: "NOBODY",
    };
    const { nc, bucket } = await put("gateway", "deposit", deposit);
    nc.publish(`$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.deposit`, "", {
      reply: Events.fiatDepositReceived.subject,
    });
    await nc.flush();
    await nc.close();
    await sleep(3_000);
    expect(await status(tx.id)).toBe("INIT");
    expect(await stack.fundsRecorded(tx.id)).toBe(0);
  });

  it("chain-watcher → pricing's market-rate write: the rate stays", async () => {
    await stack.setRate("GHS", 15, 14);
    await pushOnto("chain-watcher", Rpc.marketRateSet.subject, "pricing", {
      currency: "GHS",
      onRamp: "1",
      offRamp: "1",
    });
    const rate = await stack.client(apiKey).get("/pub/v2/rate?currency=GHS");
    expect(rate.body.onRampRate.rate).not.toBe(1);
  });

  it("pricing → the dispatcher's webhook config: the business's webhooks stay where they point", async () => {
    const c = stack.client(apiKey);
    expect(
      (await c.patch("/pub/v2/webhook", { rampWebhookURL: "https://ramp.example.com/hook" })).status,
    ).toBe(200);
    const key = await (await stack.db("gateway")).collection("api_keys").findOne({ revokedAt: null });
    await pushOnto("pricing", Rpc.webhookConfigUpdate.subject, "webhook-dispatcher", {
      apiKeyId: key?.keyId,
      body: { rampWebhookURL: "https://attacker.example.net/hook" },
    });
    const gateway = await stack.connectAs("gateway");
    const config = await callRpc(gateway, Rpc.webhookConfigGet, { apiKeyId: String(key?.keyId) });
    await gateway.close();
    expect(config.rampWebhookURL).toBe("https://ramp.example.com/hook");
  });
});
