import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "@ramp/runtime";
import type { Payments } from "../payments/payments.ts";
import type { OrdersStore } from "./orders-store.ts";
import type { ReceivedFunds } from "./received-funds.ts";

/** What the order lifecycle (onramp, offramp, bank-account orders) runs on. */
export interface LifecycleDeps {
  nc: NatsConnection;
  store: OrdersStore;
  payments: Payments;
  funds: ReceivedFunds;
  log: Logger;
}
