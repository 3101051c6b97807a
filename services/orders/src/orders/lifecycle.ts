import type { NatsConnection } from "@nats-io/transport-node";
import type { DepositObserved } from "@ramp/contracts";
import type { Logger, TraceContext } from "@ramp/runtime";
import type { Db } from "mongodb";
import type { Payments } from "../payments/payments.ts";
import { createOfframpLifecycle } from "./offramp-lifecycle.ts";
import { createOnrampLifecycle } from "./onramp-lifecycle.ts";
import type { OrdersStore } from "./orders-store.ts";
import { createReceivedFunds, type ReceivedFunds } from "./received-funds.ts";

export interface LifecycleDeps {
  db: Db;
  nc: NatsConnection;
  store: OrdersStore;
  payments: Payments;
  funds: ReceivedFunds;
  log: Logger;
}

/**
 * Order reactions to the outside world. Each handler is idempotent: transitions are conditional, so a
 * redelivered message is a no-op, and every inbound fund is recorded once so nothing received is lost.
 */
export function createLifecycle(deps: Omit<LifecycleDeps, "funds">) {
  const full: LifecycleDeps = { ...deps, funds: createReceivedFunds(deps.db) };
  const onramp = createOnrampLifecycle(full);
  const offramp = createOfframpLifecycle(full);
  return {
    onFiatDeposit: onramp.onFiatDeposit,
    onTransferResult: onramp.onTransferResult,
    onPayoutResult: offramp.onPayoutResult,
    async onChainDeposit(ev: DepositObserved, trace: TraceContext) {
      if (ev.purpose !== "payment") return offramp.onChainDeposit(ev, trace);
      const found = await deps.payments.onFunds(
        ev.ref,
        { amount: ev.amount, mint: ev.mint, chain: ev.chain },
        trace,
      );
      await full.funds.record(
        `chain:${ev.chain}:${ev.txId}:${ev.index}`,
        ev.ref,
        null,
        found ? "applied" : "unmatched",
        ev,
      );
    },
  };
}
