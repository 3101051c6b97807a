import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  Consumers,
  type OrderStatusChanged,
  type PaymentSettled,
  stringifyJson,
  type WebhookConfigDto,
  type WebhookDelivery,
} from "@ramp/contracts";
import { consume, type Logger, type RunningConsumer } from "@ramp/runtime";
import { deliveryIdOf } from "./deliveries-store.ts";
import { enqueueDelivery } from "./work-queue.ts";

/** Reads a key's webhook config (served from memory; see service.ts). */
export type ConfigOf = (apiKeyId: string) => Promise<WebhookConfigDto>;

/** The order's own webhookURL, else the key's rampWebhookURL; none → nothing is sent. */
export async function orderDelivery(
  configOf: ConfigOf,
  e: OrderStatusChanged,
): Promise<WebhookDelivery | null> {
  const url = e.webhookURL || (e.apiKeyId ? (await configOf(e.apiKeyId)).rampWebhookURL : null);
  if (!url) return null;
  return {
    deliveryId: deliveryIdOf(`${e.order.id}:${e.sequence}:${url}`),
    type: "RAMP",
    apiKeyId: e.apiKeyId,
    subjectId: e.order.id,
    sequence: e.sequence,
    url,
    body: stringifyJson(e.order),
  };
}

/** Settled payments go to the key's paymentWebhookURL, once per payment. */
export async function paymentDelivery(
  configOf: ConfigOf,
  e: PaymentSettled,
): Promise<WebhookDelivery | null> {
  const url = (await configOf(e.apiKeyId)).paymentWebhookURL;
  if (!url) return null;
  return {
    deliveryId: deliveryIdOf(`payment:${e.payment.id}`),
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
  js: JetStreamClient;
  log: Logger;
  configOf: ConfigOf;
}

/**
 * Turns events into queued deliveries: the destination is resolved and the body serialised once, then
 * the event is acknowledged. Nothing is written to the database; the work queue holds the delivery
 * until it is sent, and its message id (the delivery id) makes a redelivered event a no-op.
 */
export async function startIntake(d: IntakeDeps): Promise<RunningConsumer[]> {
  return Promise.all([
    consume(d.nc, {
      ...Consumers.webhookOrders,
      concurrency: 64,
      log: d.log,
      handler: async (e, { trace }) => {
        const delivery = await orderDelivery(d.configOf, e);
        if (delivery) await enqueueDelivery(d.js, delivery, trace);
      },
    }),
    consume(d.nc, {
      ...Consumers.webhookPayments,
      log: d.log,
      handler: async (e, { trace }) => {
        const delivery = await paymentDelivery(d.configOf, e);
        if (delivery) await enqueueDelivery(d.js, delivery, trace);
      },
    }),
  ]);
}
