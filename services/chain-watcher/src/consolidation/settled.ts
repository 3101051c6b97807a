import { type Chain, normalizeAddress, type OrderStatusChanged, type PaymentSettled } from "@ramp/contracts";
import type { Logger } from "@ramp/runtime";
import type { AllocationStore, WatchDoc } from "../allocation/allocation-store.ts";
import type { SweepStore } from "./sweep-store.ts";

/**
 * Which settled orders make their deposit address due for consolidation: an offramp that ended
 * (COMPLETED, or ERROR) and a SUCCESSFUL token payment. An ERROR offramp's tokens are swept as well: its
 * refund, like every refund, is paid from the treasury, so tokens left where they landed would never
 * come back to it. PROCESSING ones are not settled.
 */
export function createSettledHandlers(deps: {
  allocations: AllocationStore;
  sweeps: SweepStore;
  /** Chains whose deposit addresses can be consolidated (a real chain, not the sandbox adapter). */
  consolidates: (chain: Chain) => boolean;
  log: Logger;
}) {
  async function dueWatched(watch: WatchDoc, mint: string): Promise<void> {
    const allocation = await deps.allocations.get(watch.allocationId);
    if (!allocation) throw new Error(`allocation ${watch.allocationId} of a watched address is missing`);
    const target = { chain: watch.chain, address: allocation.address, index: allocation.index };
    await deps.sweeps.markDue({ ...target, mint: normalizeAddress(watch.chain, mint) }, watch.key);
  }

  async function due(chain: Chain, address: string, mint: string, ref: string): Promise<void> {
    if (!deps.consolidates(chain) || !address || !mint) return;
    const key = normalizeAddress(chain, address);
    const watch = await deps.allocations.findWatch(chain, key);
    if (!watch) {
      deps.log.warn(
        { chain, address, ref },
        "settled order's address is not one of ours; nothing to consolidate",
      );
      return;
    }
    // Settled first, due second: a deposit that the poll reads as not settled yet was stored before
    // this, so the sweep's balance reading, after it, counts it (see `onDeposit`).
    await deps.allocations.markSettled(chain, key);
    await dueWatched(watch, mint);
  }

  return {
    /**
     * A deposit on an address whose order had settled (late, or a surplus after the sweep): orders
     * records it as a fund to refund, which the treasury pays, so its tokens are swept as well.
     *
     * The poll read the watch list before it read the chain, so an order settled in between shows as
     * not settled yet, while its sweep may already have read the balance without this deposit: a
     * deposit stored just now asks the store again. One seen again (a re-poll after a crash) was stored
     * before the poll began, so the list it read is recent enough.
     */
    async onDeposit(watch: WatchDoc, mint: string, created: boolean): Promise<void> {
      if (!deps.consolidates(watch.chain)) return;
      const settled =
        watch.settled || (created && (await deps.allocations.findWatch(watch.chain, watch.key))?.settled);
      if (settled) await dueWatched(watch, mint);
    },
    async onOrderStatus(ev: OrderStatusChanged): Promise<void> {
      const o = ev.order;
      if (o.transactionType !== "OFF_RAMP" || (o.status !== "COMPLETED" && o.status !== "ERROR")) return;
      await due(o.chain, o.address, o.mint, o.id);
    },
    async onPaymentSettled(ev: PaymentSettled): Promise<void> {
      const token = ev.payment.token;
      if (ev.payment.status !== "SUCCESSFUL" || !token) return;
      await due(token.chain, token.address, token.mint, ev.payment.id);
    },
  };
}
