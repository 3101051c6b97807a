import type { JetStreamClient, JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  Consumers,
  type OrderStatusChanged,
  type PaymentSettled,
  stringifyJson,
  type WebhookConfigDto,
  type WebhookDelivery,
} from "@ramp/contracts";
import { consume, type Logger, type RunningConsumer, type TraceContext } from "@ramp/runtime";
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
  /**
   * Takes a delivery straight from its event when the replica has room, resolving once its first
   * attempt is answered; false: the delivery is to be queued (scheduler.ts `offer`).
   */
  offer(d: WebhookDelivery, event: JsMsg, trace: TraceContext): Promise<boolean>;
  /**
   * The order events' ack wait: an event held for its first attempt is kept alive meanwhile
   * (`working()`), and one a crashed replica held comes back after this, as its queued jobs do.
   */
  ackWaitMs: number;
}

/**
 * Turns events into deliveries: the destination is resolved and the body serialised once. An order
 * status is delivered straight from its event, which stays unacknowledged until its first attempt is
 * answered: no work-queue round trip (four NATS messages, a signature and its check fewer per delivery).
 * What comes after a failed first attempt, what a slow endpoint cannot take yet, what a full replica
 * cannot hold, and every payment go through the work queue, whose message id (the delivery id) makes a
 * delivery queued twice a no-op. A redelivered event always takes the queue. Nothing is written to the
 * database.
 */
export async function startIntake(d: IntakeDeps): Promise<RunningConsumer[]> {
  return Promise.all([
    consume(d.nc, {
      ...Consumers.webhookOrders,
      concurrency: 64,
      ackWaitMs: d.ackWaitMs,
      log: d.log,
      handler: async (e, { trace, msg }) => {
        const delivery = await orderDelivery(d.configOf, e);
        if (!delivery) return;
        if (msg.info.deliveryCount === 1 && (await d.offer(delivery, msg, trace))) return;
        await enqueueDelivery(d.js, delivery, trace);
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
