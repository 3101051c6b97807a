import { type Logger, type Stoppable, startPeriodic } from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { ExceptionsStore } from "./exceptions-store.ts";

const PAGE = 200;
/** Only PROCESSING waits on the system (the payout or the delivery); INIT waits on the payer. */
const WAITING_ON_SYSTEM = "PROCESSING" as const;

export const stuckKey = (orderId: string) => `stuck:${orderId}:${WAITING_ON_SYSTEM}`;

/**
 * Raises `stuck` for every order in PROCESSING longer than `afterMs`, and clears it once the order
 * has moved on. Both halves read only pending work: orders in PROCESSING entered before the cut-off
 * (an index on status and the time it entered), and the open `stuck` exceptions.
 */
export function startStuckSweeper(deps: {
  db: Db;
  exceptions: ExceptionsStore;
  log: Logger;
  afterMs: number;
  intervalMs: number;
}): Stoppable & { init(): Promise<void>; sweep(): Promise<void> } {
  const orders = deps.db.collection<OrderDoc>("orders");
  const entered = `statusTimes.${WAITING_ON_SYSTEM}`;

  async function raiseStuck() {
    const cutoff = new Date(Date.now() - deps.afterMs);
    let after: Date | null = null;
    for (;;) {
      const page: OrderDoc[] = await orders
        .find({
          status: WAITING_ON_SYSTEM,
          [entered]: after ? { $lte: cutoff, $gt: after } : { $lte: cutoff },
        })
        .sort({ [entered]: 1 })
        .limit(PAGE)
        .toArray();
      for (const o of page) {
        const since = o.statusTimes?.PROCESSING ?? cutoff;
        const orderId = o._id.toHexString();
        const minutes = Math.round((Date.now() - since.getTime()) / 60_000);
        await deps.exceptions.raise({
          key: stuckKey(orderId),
          kind: "stuck",
          businessId: o.businessId,
          orderId,
          chain: o.chain,
          token: o.mint,
          amount: o.amount,
          currency: o.currency,
          since,
          detail: `${o.transactionType} in PROCESSING for ${minutes} min, waiting on the ${
            o.transactionType === "OFF_RAMP" ? "bank payout" : "token delivery"
          }`,
        });
      }
      const last = page[page.length - 1];
      if (page.length < PAGE || !last?.statusTimes?.PROCESSING) return;
      after = last.statusTimes.PROCESSING;
    }
  }

  async function clearMovedOn() {
    let after: ObjectId | null = null;
    for (;;) {
      const open = await deps.exceptions.page({ kind: "stuck", status: "open" }, after, PAGE);
      for (const e of open) {
        if (!e.orderId || !ObjectId.isValid(e.orderId)) continue;
        const order = await orders.findOne({ _id: new ObjectId(e.orderId) }, { projection: { status: 1 } });
        if (order?.status !== WAITING_ON_SYSTEM)
          await deps.exceptions.clear(e.key, `the order moved on to ${order?.status ?? "nothing"}`);
      }
      const last = open[open.length - 1];
      if (open.length < PAGE || !last) return;
      after = last._id;
    }
  }

  const sweep = async () => {
    await raiseStuck();
    await clearMovedOn();
  };
  const loop = startPeriodic("stuck orders", deps.intervalMs, sweep, deps.log, { immediate: false });
  return {
    init: async () => {
      await orders.createIndex({ status: 1, [entered]: 1 }, { name: "stuck_processing" });
    },
    sweep,
    stop: () => loop.stop(),
  };
}
