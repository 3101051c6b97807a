import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import { ChangeFeeds, type DepositObserved, Events, TransactionDto } from "@ramp/contracts";
import { sleep } from "@ramp/devinfra/testing";
import { createLogger, ensureStreams, followChangeFeed, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type ServiceName, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

let stack: Stack;
let apiKey: string;
beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  apiKey = (await stack.createBusiness("Trust Co")).apiKey;
});
afterAll(async () => stack?.close());

async function newOfframp(): Promise<TransactionDto> {
  const res = await stack.client(apiKey).post("/pub/v2/offramp", {
    accountNumber: "0123456789",
    bankCode: "000013",
    currency: "NGN",
    mint: BASE_USDC,
    chain: "BASE",
    amount: 10,
  });
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
      const { js } = await ensureStreams(nc);
      await expect(js.publish(`$KV.${ChangeFeeds.pricing.bucket}.market-rate.KES`, "forged")).rejects.toThrow(
        /permissions violation/i,
      );
    } finally {
      await feed.stop();
      await nc.close();
    }
  });
});
