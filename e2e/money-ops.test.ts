import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  DepositObserved,
  Events,
  type ExceptionDto,
  type RefundDto,
  Rpc,
  type ServiceName,
  type StreamContract,
} from "@ramp/contracts";
import { callRpc, ensureStreams, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { signedInOperator } from "./support/console-operator.ts";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, baseOfframpBody, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

/**
 * Money operations through the console on the whole stack: funds that were not applied open an
 * exception, and a refund of one is sent exactly once however often it is asked for.
 */
let stack: Stack;
let biz: { apiKey: string };
let nc: NatsConnection;
let session: Record<string, string>;
const REFUND_TO = "0x00000000000000000000000000000000000a11ce";

beforeAll(async () => {
  stack = await startStack({
    serviceEnv: {
      "chain-watcher": sandboxChainEnv,
      banking: { PAYOUT_RETRY_BASE_MS: "50" },
      orders: { STUCK_AFTER_SECONDS: "2", STUCK_SWEEP_MS: "300" },
    },
  });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Refunds Co");
  nc = await stack.connectAs("orders");
  session = await signedInOperator(stack.url);
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const console_ = (method: string, path: string, body?: unknown) =>
  stack.request(method, `/console/v1${path}`, {
    body,
    headers: session,
  });

async function finalStatus(id: string): Promise<string> {
  return eventually(async () => {
    const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${id}`);
    return ["COMPLETED", "ERROR"].includes(r.body.status) ? (r.body.status as string) : undefined;
  }, 30_000);
}

async function openException(kind: string, orderId: string): Promise<ExceptionDto> {
  return eventually(async () => {
    const res = await console_("GET", `/exceptions?kind=${kind}&status=open&limit=100`);
    expect(res.status).toBe(200);
    return (res.body.data as ExceptionDto[]).find((e) => e.orderId === orderId);
  }, 30_000);
}

async function exceptionById(id: string): Promise<ExceptionDto | undefined> {
  const res = await console_("GET", "/exceptions?limit=100");
  return (res.body.data as ExceptionDto[]).find((e) => e.id === id);
}

/** A refund's result closes its exception just after it marks the fund refunded. */
const closed = (id: string) =>
  eventually(async () => ((await exceptionById(id))?.status === "resolved" ? true : undefined), 10_000);

async function offramp(accountNumber: string) {
  const res = await stack.client(biz.apiKey).post("/pub/v2/offramp", baseOfframpBody(accountNumber));
  expect(res.status).toBe(201);
  return res.body as { id: string; address: string };
}

/** Publishes an event again as its service would after a crash (a message id of its own, so not deduplicated). */
async function replayAs<C extends StreamContract>(
  service: ServiceName,
  contract: C,
  payload: z.input<C["payload"]>,
) {
  const conn = await stack.connectAs(service);
  try {
    const { js } = await ensureStreams(conn);
    await publish(js, contract, payload, `again:${randomUUID()}`);
  } finally {
    await conn.close();
  }
}

/** An offramp paid in tokens, once it has ended: COMPLETED, or ERROR when its account refuses payouts (888…). */
async function paidOfframp(accountNumber: string) {
  const order = await offramp(accountNumber);
  await callRpc(nc, Rpc.sandboxChainDeposit, {
    chain: "BASE",
    address: order.address,
    mint: BASE_USDC,
    amount: "10",
  });
  return { ...order, status: await finalStatus(order.id) };
}

async function erroredOfframp(accountNumber: string) {
  const order = await paidOfframp(accountNumber);
  expect(order.status).toBe("ERROR");
  return order;
}

const transfersTo = async (requestId: string) =>
  (await stack.db("chain-watcher")).collection("transfers").countDocuments({ _id: requestId } as never);

describe("refundable funds", () => {
  it("a surplus token deposit opens an exception; 12 racing refunds send one transfer and close it", async () => {
    const order = await offramp("0123456789");
    const deposit = () =>
      callRpc(nc, Rpc.sandboxChainDeposit, {
        chain: "BASE",
        address: order.address,
        mint: BASE_USDC,
        amount: "10",
      });
    await deposit();
    expect(await finalStatus(order.id)).toBe("COMPLETED");
    await deposit();
    const exception = await openException("refundable-funds", order.id);
    expect(exception).toMatchObject({
      kind: "refundable-funds",
      chain: "BASE",
      amount: "10",
      status: "open",
    });
    expect(exception.detail).toMatch(/^surplus/);
    const fundId = exception.fundId ?? "";

    // Someone clicking again and again, and a second operator at once: one refund.
    const clicks = await Promise.all(
      Array.from({ length: 12 }, () => console_("POST", `/funds/${fundId}/refund`, { toAddress: REFUND_TO })),
    );
    expect(clicks.map((r) => r.status)).toEqual(Array(12).fill(202));
    const ids = new Set(clicks.map((r) => (r.body as RefundDto).id));
    expect(ids).toEqual(new Set([fundId]));
    expect((clicks[0]!.body as RefundDto).amount).toBe("10");

    const funds = (await stack.db("orders")).collection<{
      _id: string;
      outcome: string;
      refund?: { txHash: string };
    }>("received_funds");
    const refunded = await eventually(async () => {
      const f = await funds.findOne({ _id: fundId });
      return f?.outcome === "refunded" ? f : undefined;
    }, 30_000);
    expect(refunded.refund?.txHash).toBeTruthy();
    expect(await transfersTo(`refund:${fundId}`)).toBe(1);
    await closed(exception.id);

    // A repeat after it was sent answers the same refund; another destination is refused.
    const again = await console_("POST", `/funds/${fundId}/refund`, { toAddress: REFUND_TO });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: fundId, state: "sent" });
    const elsewhere = await console_("POST", `/funds/${fundId}/refund`, { toAddress: EVM_RECIPIENT });
    expect(elsewhere.status).toBe(409);
    expect(await transfersTo(`refund:${fundId}`)).toBe(1);

    // Every answered click is a write and left its audit entry; the refused one changed nothing, left none.
    const audit = await console_("GET", "/audit?action=consoleFundRefund&limit=100");
    expect(audit.body.data).toHaveLength(13);
  });

  /**
   * An onramp paid, completed, then paid again to its virtual account, which its order had closed:
   * banking still tells orders, which keeps the second transfer as a surplus to refund.
   */
  async function fiatSurplus(amount: number) {
    const created = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "ETHEREUM",
      mint: ETH_USDC,
      recipient: EVM_RECIPIENT,
      amount,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await callRpc(nc, Rpc.sandboxFiatDeposit, { ref: id });
    expect(await finalStatus(id)).toBe("COMPLETED");
    await callRpc(nc, Rpc.sandboxFiatDeposit, { ref: id });
    const exception = await openException("refundable-funds", id);
    expect(exception.detail).toMatch(/^surplus/);
    return exception;
  }

  it("a fiat deposit to the closed virtual account of a completed onramp is refunded through the rail's payout, once", async () => {
    const exception = await fiatSurplus(10);
    expect(exception).toMatchObject({ currency: "NGN", amount: "16500.00" });
    const fundId = exception.fundId ?? "";

    // A token destination for fiat is a 400 that changes nothing.
    expect((await console_("POST", `/funds/${fundId}/refund`, { toAddress: REFUND_TO })).status).toBe(400);
    const to = { bankCode: "000013", accountNumber: "0123456789" };
    const clicks = await Promise.all(
      Array.from({ length: 6 }, () => console_("POST", `/funds/${fundId}/refund`, to)),
    );
    expect(clicks.map((r) => r.status)).toEqual(Array(6).fill(202));

    const payouts = (await stack.db("banking")).collection("payouts");
    // The record exists (PENDING) before the rail answers it.
    const payout = await eventually(async () => {
      const p = await payouts.findOne({ _id: `refund:${fundId}` } as never);
      return p && p.status !== "PENDING" ? p : undefined;
    }, 30_000);
    expect(payout).toMatchObject({ status: "COMPLETED" });
    expect(await payouts.countDocuments({ _id: `refund:${fundId}` } as never)).toBe(1);
    const funds = (await stack.db("orders")).collection<{ _id: string; outcome: string }>("received_funds");
    await eventually(
      async () => ((await funds.findOne({ _id: fundId }))?.outcome === "refunded" ? true : undefined),
      30_000,
    );
    await closed(exception.id);
  });

  it("a refund the rail refused can be asked again: one new attempt, the failed one kept, then sent once", async () => {
    const exception = await fiatSurplus(3);
    const fundId = exception.fundId ?? "";
    const refund = (accountNumber: string) =>
      console_("POST", `/funds/${fundId}/refund`, { bankCode: "000013", accountNumber });
    const refunds = (await stack.db("orders")).collection<{ _id: string; state: string }>("refunds");
    const stateOf = (want: string) =>
      eventually(async () => {
        const r = await refunds.findOne({ _id: fundId });
        return r?.state === want ? r : undefined;
      }, 30_000);

    // The beneficiary bank refuses the first destination: the refund fails, the fund stays refundable.
    expect((await refund("8880000009")).status).toBe(202);
    await stateOf("failed");
    expect((await exceptionById(exception.id))?.status).toBe("open");

    // Asked again, to another account, by racing clicks: one second attempt, paid once.
    const clicks = await Promise.all(Array.from({ length: 5 }, () => refund("0123456789")));
    expect(clicks.map((r) => r.status)).toEqual(Array(5).fill(202));
    expect(new Set(clicks.map((r) => (r.body as RefundDto).attempt))).toEqual(new Set([2]));
    // While the second attempt is under way (or once sent), the refused account is not asked again.
    expect((await refund("8880000009")).status).toBe(409);
    await stateOf("sent");
    await closed(exception.id);
    const payouts = (await stack.db("banking")).collection<{ _id: string; status: string }>("payouts");
    const mine = await payouts.find({ _id: { $regex: `${fundId}$` } } as never).toArray();
    expect(mine.map((p) => [p._id, p.status]).sort()).toEqual([
      [`refund:2:${fundId}`, "COMPLETED"],
      [`refund:${fundId}`, "FAILED"],
    ]);
    const answer = (await refund("0123456789")).body as RefundDto;
    expect(answer).toMatchObject({
      state: "sent",
      attempt: 2,
      destination: { bankCode: "000013", accountNumber: "0123456789" },
      failedAttempts: [
        {
          attempt: 1,
          destination: { bankCode: "000013", accountNumber: "8880000009" },
          reason: "Beneficiary bank rejected the transfer",
        },
      ],
    });
    // Each answered ask left its audit entry: the refused first try, the retry's clicks and the repeat.
    const audit = await console_("GET", "/audit?action=consoleFundRefund&limit=100");
    const entries = (audit.body.data as { target: string; after?: { created?: boolean } }[]).filter(
      (e) => e.target === `fund:${fundId}`,
    );
    expect(entries).toHaveLength(7);
    expect(entries.filter((e) => e.after?.created === true)).toHaveLength(2);
  });

  it("an ERROR offramp's tokens are refunded once, the order stays ERROR and its payout-failed exception closes", async () => {
    const order = await erroredOfframp("8880000007");
    const exception = await openException("payout-failed", order.id);
    expect(exception.detail).toMatch(/payout failed/);

    const clicks = await Promise.all(
      Array.from({ length: 5 }, () =>
        console_("POST", `/transactions/${order.id}/refund`, { toAddress: REFUND_TO }),
      ),
    );
    expect(clicks.map((r) => r.status)).toEqual(Array(5).fill(202));
    const fundId = (clicks[0]!.body as RefundDto).fundId;
    await eventually(
      async () => ((await exceptionById(exception.id))?.status === "resolved" ? true : undefined),
      30_000,
    );
    expect(await transfersTo(`refund:${fundId}`)).toBe(1);
    expect((await stack.client(biz.apiKey).get(`/pub/v2/transaction/${order.id}`)).body.status).toBe("ERROR");
    // The refund joins the order's timeline, with where it went and its tx hash.
    const timeline = await eventually(async () => {
      const r = await console_("GET", `/transactions/${order.id}`);
      const entries = r.body.timeline as { kind: string; detail: Record<string, unknown> }[];
      return entries.find((e) => e.kind === "refund");
    }, 30_000);
    expect(timeline.detail).toMatchObject({ fundId, destination: REFUND_TO });
    expect(timeline.detail.txHash).toBeTruthy();

    // A completed order has nothing to refund.
    const done = await paidOfframp("0123456789");
    expect(done.status).toBe("COMPLETED");
    expect((await console_("POST", `/transactions/${done.id}/refund`, { toAddress: REFUND_TO })).status).toBe(
      409,
    );
  });
  it("a fund refunded before its exception was raised still leaves the exception closed", async () => {
    const order = await paidOfframp("0123456700");
    expect(order.status).toBe("COMPLETED");
    await callRpc(nc, Rpc.sandboxChainDeposit, {
      chain: "BASE",
      address: order.address,
      mint: BASE_USDC,
      amount: "10",
    });
    const first = await openException("refundable-funds", order.id);
    const fundId = first.fundId ?? "";
    // orders dies between the fund's record and its exception: as if it had never been raised.
    const exceptions = (await stack.db("orders")).collection("exceptions");
    await exceptions.deleteOne({ key: `refundable-funds:${fundId}` });
    expect((await console_("POST", `/funds/${fundId}/refund`, { toAddress: REFUND_TO })).status).toBe(202);
    const funds = (await stack.db("orders")).collection<{ _id: string; outcome: string }>("received_funds");
    await eventually(
      async () => ((await funds.findOne({ _id: fundId }))?.outcome === "refunded" ? true : undefined),
      30_000,
    );
    // Restarted, orders is handed the deposit again and raises the fund's exception now.
    const [, chain, txId, index] = fundId.split(":");
    const stored = await (await stack.db("chain-watcher"))
      .collection("deposits")
      .findOne({ txId, index: Number(index), chain } as never);
    await replayAs("chain-watcher", Events.depositObserved, DepositObserved.parse(stored));
    const raised = await eventually(
      async () =>
        (await exceptions.findOne({ key: `refundable-funds:${fundId}`, status: "resolved" })) ?? undefined,
      30_000,
    );
    expect(raised.note).toMatch(/^refunded \(0x[0-9a-f]{64}\)$/);
    expect(await transfersTo(`refund:${fundId}`)).toBe(1);
  });
});

describe("payouts when the rail fails", () => {
  it("a rail answering 503 twice is asked again and the order completes, paid once", async () => {
    const order = await paidOfframp("7770000001");
    expect(order.status).toBe("COMPLETED");
    const payouts = (await stack.db("banking")).collection("payouts");
    expect(await payouts.findOne({ _id: order.id } as never)).toMatchObject({ status: "COMPLETED" });
  });

  it("a refund settled before the order's payout-failed exception was raised still leaves it closed", async () => {
    const order = await erroredOfframp("8880000009");
    const first = await openException("payout-failed", order.id);
    // orders dies between the order's ERROR and its exception: as if it had never been raised.
    const exceptions = (await stack.db("orders")).collection("exceptions");
    await exceptions.deleteOne({ key: `payout-failed:${order.id}` });
    expect(await exceptionById(first.id)).toBeUndefined();
    const click = await console_("POST", `/transactions/${order.id}/refund`, { toAddress: REFUND_TO });
    expect(click.status).toBe(202);
    const funds = (await stack.db("orders")).collection("received_funds");
    await eventually(
      async () => ((await funds.findOne({ orderId: order.id }))?.outcome === "refunded" ? true : undefined),
      30_000,
    );
    // Restarted, orders is handed the failed payout's result again and raises the exception now.
    await replayAs("banking", Events.payoutResult, {
      orderId: order.id,
      status: "FAILED",
      reference: `again-${order.id}`,
      reason: "rail refused",
    });
    const raised = await eventually(
      async () =>
        (await exceptions.findOne({ key: `payout-failed:${order.id}`, status: "resolved" })) ?? undefined,
      30_000,
    );
    expect(raised.note).toMatch(/^refunded \(0x[0-9a-f]{64}\)$/);
    expect(await transfersTo(`refund:${(click.body as RefundDto).fundId}`)).toBe(1);
  });

  it("a rail that stays down: after the last retry the order is ERROR and a payout-failed exception opens", async () => {
    const order = await paidOfframp("7760000001");
    expect(order.status).toBe("ERROR");
    const exception = await openException("payout-failed", order.id);
    expect(exception.detail).toMatch(/Bank rail unavailable after 4 attempts/);
  });
});

describe("the exceptions queue", () => {
  it("resolves with a note once; a repeat is 204 and changes nothing; bad input is a 400", async () => {
    const order = await erroredOfframp("8880000008");
    const exception = await openException("payout-failed", order.id);
    const resolve = (note: unknown) => console_("POST", `/exceptions/${exception.id}/resolve`, { note });
    expect((await resolve("")).status).toBe(400);
    expect((await console_("GET", "/exceptions?kind=nope")).status).toBe(400);
    expect((await resolve("customer paid out by hand")).status).toBe(204);
    expect((await resolve("again")).status).toBe(204);
    expect(await exceptionById(exception.id)).toMatchObject({
      status: "resolved",
      note: "customer paid out by hand",
    });
    expect(
      (await console_("POST", "/exceptions/0123456789abcdef01234567/resolve", { note: "x" })).status,
    ).toBe(404);
    const audit = await console_("GET", "/audit?action=consoleExceptionResolve&limit=10");
    expect(audit.body.data.map((e: { target: string }) => e.target)).toEqual([
      `exception:${exception.id}`,
      `exception:${exception.id}`,
    ]);
  });
});

describe("stuck orders", () => {
  it("an onramp waiting on a delivery past STUCK_AFTER_SECONDS opens `stuck`; it clears once the order moves on", async () => {
    const created = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "ETHEREUM",
      mint: ETH_USDC,
      recipient: EVM_RECIPIENT,
      amount: 4,
    });
    const id = created.body.id as string;
    // The delivery cannot happen while chain-watcher is down: the order waits in PROCESSING.
    await stack.stop("chain-watcher");
    try {
      await callRpc(nc, Rpc.sandboxFiatDeposit, { ref: id });
      const exception = await openException("stuck", id);
      expect(exception.detail).toMatch(/^ON_RAMP in PROCESSING for \d+ min, waiting on the token delivery$/);
      await stack.start("chain-watcher");
      expect(await finalStatus(id)).toBe("COMPLETED");
      await closed(exception.id);
      expect((await exceptionById(exception.id))?.note).toBe("the order moved on to COMPLETED");
    } finally {
      await stack.start("chain-watcher");
    }
  });
});
