import type { OutboxEntry, TraceContext } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { OrdersStore } from "../orders/orders-store.ts";
import type { FundsOutcome, LandedFunds } from "../orders/received-funds.ts";

/**
 * What one fund does to an INIT order, both directions alike: priced, it moves the order to
 * PROCESSING with the command that continues it; worth less than the fee, it ends the order in ERROR.
 * The fund's own claim on the way out of INIT decides: a fund that loses is surplus.
 */
export async function moveOnFunds(
  store: OrdersStore,
  order: OrderDoc,
  landed: LandedFunds,
  trace: TraceContext,
  outcome: {
    /** What the fund pays for, or null when it is worth less than the fee. */
    priced: Partial<OrderDoc> | null;
    /** Fields set either way (the deposit's signature, the unpaid expiry cleared). */
    seen: Partial<OrderDoc>;
    /** Fields recording an underpayment that ends in ERROR. */
    short: Partial<OrderDoc>;
    next: (o: OrderDoc) => OutboxEntry[];
  },
): Promise<FundsOutcome> {
  const move = { id: order._id, from: "INIT" as const, cause: landed.id, trace, seen: order };
  if (!outcome.priced) {
    const errored = await store.transition({
      ...move,
      to: "ERROR",
      set: { ...outcome.seen, ...outcome.short, errorReason: "deposit worth less than the fee" },
    });
    return errored ? "underfunded" : "surplus";
  }
  const moved = await store.transition({
    ...move,
    to: "PROCESSING",
    set: { ...outcome.seen, ...outcome.priced },
    extra: outcome.next,
  });
  return moved ? "applied" : "surplus";
}

/** The end of PROCESSING, from the rail's or the chain's answer: COMPLETED, or ERROR with its reason. */
export async function finishProcessing(
  store: OrdersStore,
  orderId: string,
  answer: { ok: boolean; cause: string; set: Partial<OrderDoc>; errorReason: string },
  trace: TraceContext,
): Promise<void> {
  // No read first: the transition reads the order under its hold, and does nothing if it is not there.
  if (!ObjectId.isValid(orderId)) return;
  await store.transition({
    id: new ObjectId(orderId),
    from: "PROCESSING",
    to: answer.ok ? "COMPLETED" : "ERROR",
    cause: answer.cause,
    set: answer.ok ? answer.set : { ...answer.set, errorReason: answer.errorReason },
    trace,
  });
}
