import type { NatsConnection } from "@nats-io/transport-node";
import { type ExceptionDto, type ReconciliationDto, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInOperator } from "./support/console-operator.ts";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, baseOfframpBody, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

/**
 * The daily reconciliation on the whole stack: a day of ordinary orders, a refund and funds kept for
 * operators, plus one of each mismatch planted behind the services' backs, each reported.
 */
let stack: Stack;
let biz: { apiKey: string };
let nc: NatsConnection;
let ops: Record<string, string>;
/** Everything of the test is moved onto this day, so the books do not depend on when it runs. */
const DAY = "2026-03-14";
const NOON = new Date(`${DAY}T12:00:00Z`);

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Books Co");
  nc = await stack.connectAs("orders");
  ops = await signedInOperator(stack.url);
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const consoleCall = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  stack.request(method, `/console/v1${path}`, {
    body,
    headers: { ...ops, ...headers },
  });

const finished = (id: string) =>
  eventually(async () => {
    const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${id}`);
    return ["COMPLETED", "ERROR"].includes(r.body.status) ? (r.body.status as string) : undefined;
  }, 30_000);

async function offramp(extra = 0): Promise<{ id: string; surplus?: string }> {
  const res = await stack.client(biz.apiKey).post("/pub/v2/offramp", baseOfframpBody());
  const { id, address } = res.body as { id: string; address: string };
  const pay = (amount: string) =>
    callRpc(nc, Rpc.sandboxChainDeposit, { chain: "BASE", address, mint: BASE_USDC, amount });
  await pay("10");
  expect(await finished(id)).toBe("COMPLETED");
  if (!extra) return { id };
  await pay(String(extra));
  const exception = await eventually(async () => {
    const r = await consoleCall("GET", "/exceptions?kind=refundable-funds&status=open&limit=100");
    return (r.body.data as ExceptionDto[]).find((e) => e.orderId === id);
  }, 30_000);
  return { id, surplus: exception.fundId ?? "" };
}

async function onramp(): Promise<string> {
  const res = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
    currency: "NGN",
    chain: "ETHEREUM",
    mint: ETH_USDC,
    recipient: EVM_RECIPIENT,
    amount: 5,
  });
  const id = res.body.id as string;
  await callRpc(nc, Rpc.sandboxFiatDeposit, { ref: id });
  expect(await finished(id)).toBe("COMPLETED");
  return id;
}

describe("daily reconciliation", () => {
  it("totals the day per currency and chain and reports each planted mismatch, in JSON and CSV", async () => {
    const plain = await offramp();
    const kept = await offramp(3); // its surplus stays open in the queue: accounted for
    const dropped = await offramp(4); // its surplus is resolved without a refund: unaccounted
    const refunded = await offramp(2); // its surplus is refunded
    const delivered = await onramp();
    const undelivered = await onramp();
    const orders = await stack.db("orders");
    const funds = orders.collection<{ _id: string; orderId: string | null }>("received_funds");

    const dropExc = (await consoleCall("GET", "/exceptions?kind=refundable-funds&status=open&limit=100")).body
      .data as ExceptionDto[];
    const toDrop = dropExc.find((e) => e.fundId === dropped.surplus);
    expect(
      (await consoleCall("POST", `/exceptions/${toDrop?.id}/resolve`, { note: "written off" })).status,
    ).toBe(204);
    const to = { toAddress: "0x00000000000000000000000000000000000a11ce" };
    expect((await consoleCall("POST", `/funds/${refunded.surplus}/refund`, to)).status).toBe(202);
    await eventually(
      async () =>
        (await orders.collection("refunds").findOne({ _id: refunded.surplus } as never))?.state === "sent"
          ? true
          : undefined,
      30_000,
    );

    // Planted: a completed offramp whose deposit record is gone; a payout for an order nobody has; a
    // completed onramp whose transfer failed.
    await funds.deleteOne({ orderId: plain.id });
    const ghost = new ObjectId().toHexString();
    await (await stack.db("banking")).collection("payouts").insertOne({
      _id: ghost,
      command: {
        orderId: ghost,
        bankCode: "000013",
        accountNumber: "0123456789",
        accountName: "ADA OKAFOR",
        currency: "NGN",
        fiatAmount: "999.00",
        narration: "ghost",
      },
      status: "COMPLETED",
      reference: "SBX-GHOST",
      reason: null,
      createdAt: NOON,
      outbox: [],
    } as never);
    await (await stack.db("chain-watcher"))
      .collection("transfers")
      .updateOne({ _id: undelivered } as never, { $set: { status: "failed" } });

    // The whole test happened on DAY.
    await orders.collection("orders").updateMany({}, { $set: { "statusTimes.COMPLETED": NOON } });
    await funds.updateMany({}, { $set: { receivedAt: NOON } });
    await orders.collection("refunds").updateMany({}, { $set: { sentAt: NOON } });
    await (await stack.db("banking")).collection("payouts").updateMany({}, { $set: { createdAt: NOON } });

    const res = await consoleCall("GET", `/reconciliation?date=${DAY}`);
    expect(res.status).toBe(200);
    const day = res.body as ReconciliationDto;
    expect(day.date).toBe(DAY);
    expect(day.rows).toEqual([
      {
        currency: "NGN",
        chain: "BASE",
        ordersCompleted: 4,
        fiatIn: "0",
        fiatOut: "64000",
        tokensIn: "40",
        tokensOut: "0",
        feesEarned: "0",
        refunds: 0,
        fiatRefunded: "0",
        tokensRefunded: "0",
      },
      {
        currency: "NGN",
        chain: "ETHEREUM",
        ordersCompleted: 2,
        fiatIn: "16500",
        fiatOut: "0",
        tokensIn: "0",
        tokensOut: "10",
        feesEarned: "0",
        refunds: 0,
        fiatRefunded: "0",
        tokensRefunded: "0",
      },
      {
        currency: null,
        chain: "BASE",
        ordersCompleted: 0,
        fiatIn: "0",
        fiatOut: "0",
        tokensIn: "0",
        tokensOut: "0",
        feesEarned: "0",
        refunds: 1,
        fiatRefunded: "0",
        tokensRefunded: "2",
      },
    ]);
    const found = day.mismatches.map((m) => [m.kind, m.ref]).sort();
    expect(found).toEqual(
      [
        ["fund-unaccounted", dropped.surplus],
        ["offramp-without-deposit", plain.id],
        ["onramp-without-transfer", undelivered],
        ["payout-without-order", ghost],
      ].sort(),
    );
    expect(day.mismatches.find((m) => m.kind === "onramp-without-transfer")?.detail).toMatch(/failed/);
    // What is in order is not reported.
    for (const fine of [kept.id, refunded.id, delivered])
      expect(day.mismatches.map((m) => m.ref)).not.toContain(fine);

    const csv = await consoleCall("GET", `/reconciliation?date=${DAY}`, undefined, { accept: "text/csv" });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (csv.body as string).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "record,date,currency,chain,ordersCompleted,fiatIn,fiatOut,tokensIn,tokensOut,feesEarned,refunds,fiatRefunded,tokensRefunded,mismatch,ref,detail",
    );
    expect(lines.filter((l) => l.startsWith("total,"))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith("mismatch,"))).toHaveLength(4);
    expect(lines).toContain(
      `mismatch,${DAY},,,,,,,,,,,,payout-without-order,${ghost},payout COMPLETED of 999.00 NGN (SBX-GHOST) for no known order or refund`,
    );

    // Another day has nothing; a malformed date is a 400.
    const other = await consoleCall("GET", "/reconciliation?date=2026-03-15");
    expect(other.body).toEqual({ date: "2026-03-15", rows: [], mismatches: [] });
    expect((await consoleCall("GET", "/reconciliation?date=2026-02-30")).status).toBe(400);
    expect((await consoleCall("GET", "/reconciliation?date=yesterday")).status).toBe(400);
  });
});
