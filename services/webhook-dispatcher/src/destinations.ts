import type { NatsConnection } from "@nats-io/transport-node";
import { Consumers, type OrderStatusChanged, type PaymentSettled, stringifyJson } from "@ramp/contracts";
import { consume, type Logger, type RunningConsumer } from "@ramp/runtime";
import type { ConfigStore } from "./config-store.ts";
import type { DeliveriesStore, NewDelivery } from "./deliveries-store.ts";
import type { Scheduler } from "./scheduler.ts";

/** spec §6: the order's own webhookURL, else the key's rampWebhookURL; none → nothing is sent. */
export async function orderDelivery(
  configs: ConfigStore,
  e: OrderStatusChanged,
): Promise<NewDelivery | null> {
  const url = e.webhookURL || (e.apiKeyId ? (await configs.get(e.apiKeyId)).rampWebhookURL : null);
  if (!url) return null;
  return {
    key: `${e.order.id}:${e.sequence}:${url}`,
    type: "RAMP",
    apiKeyId: e.apiKeyId,
    subjectId: e.order.id,
    sequence: e.sequence,
    url,
    body: stringifyJson(e.order),
  };
}

/** Settled payments go to the key's paymentWebhookURL, once per payment. */
export async function paymentDelivery(configs: ConfigStore, e: PaymentSettled): Promise<NewDelivery | null> {
  const url = (await configs.get(e.apiKeyId)).paymentWebhookURL;
  if (!url) return null;
  return {
    key: `payment:${e.payment.id}`,
    type: "PAYMENT",
    apiKeyId: e.apiKeyId,
    subjectId: e.payment.id,
    sequence: 0,
    url,
    body: stringifyJson(e.payment),
  };
}

export interface IntakeDeps {
  nc: NatsConnection;
  log: Logger;
  configs: ConfigStore;
  deliveries: DeliveriesStore;
  scheduler: Scheduler;
  firstDelayMs: number;
}

/**
 * Turns events into stored deliveries and acks them at once: retries can span hours, which is the
 * database's job, not a JetStream message held unacknowledged.
 */
export async function startIntake(d: IntakeDeps): Promise<RunningConsumer[]> {
  const store = async (delivery: NewDelivery | null) => {
    if (!delivery) return;
    const doc = await d.deliveries.add(delivery, d.firstDelayMs);
    if (doc && d.firstDelayMs === 0 && d.scheduler.hasRoom()) d.scheduler.run(doc);
  };
  return Promise.all([
    consume(d.nc, {
      ...Consumers.webhookOrders,
      log: d.log,
      handler: async (e) => store(await orderDelivery(d.configs, e)),
    }),
    consume(d.nc, {
      ...Consumers.webhookPayments,
      log: d.log,
      handler: async (e) => store(await paymentDelivery(d.configs, e)),
    }),
  ]);
}
