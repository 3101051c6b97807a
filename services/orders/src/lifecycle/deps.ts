import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "@ramp/runtime";
import type { ExceptionsStore } from "../money/exceptions-store.ts";
import type { Refunds } from "../money/refunds.ts";
import type { OrdersStore } from "../orders/orders-store.ts";
import type { ReceivedFunds } from "../orders/received-funds.ts";
import type { Payments } from "../payments/payments.ts";

/** What the order lifecycle (onramp, offramp, bank-account orders) runs on. */
export interface LifecycleDeps {
  nc: NatsConnection;
  store: OrdersStore;
  payments: Payments;
  funds: ReceivedFunds;
  exceptions: ExceptionsStore;
  refunds: Refunds;
  log: Logger;
}
