import {
  AckPolicy,
  type Consumer,
  DeliverPolicy,
  type JetStreamClient,
  jetstreamManager,
  RetentionPolicy,
} from "@nats-io/jetstream";
import { type NatsConnection, nanos } from "@nats-io/transport-node";
import { type WebhookDelivery, WebhookWork } from "@ramp/contracts";
import { ensureDurable, lookUpOrCreate, publishTraced, type TraceContext } from "@ramp/runtime";

const DEDUPE_WINDOW_MS = 24 * 3600 * 1000;

/**
 * The dispatcher's queue of deliveries: a work-queue stream (a message is gone once acknowledged) and
 * one durable consumer shared by every replica. Retries wait in it as delayed redeliveries
 * (`nak(delay)`), which the server keeps through restarts of either side.
 *
 * `max_ack_pending` is unlimited on purpose: a message waiting out a retry delay still counts as
 * pending, and hours-long delays must never stall new deliveries. How much a replica takes on at once
 * is bounded on its side instead (see scheduler.ts). `ack_wait` outlasts one attempt plus its lane
 * bookkeeping; messages queued in memory longer than that are kept alive with `working()`.
 */
export async function openWorkQueue(
  nc: NatsConnection,
  js: JetStreamClient,
  ackWaitMs: number,
  replicas = 1,
): Promise<Consumer> {
  const jsm = await jetstreamManager(nc);
  const { stream, deliver, durable } = WebhookWork;
  await lookUpOrCreate(
    () => jsm.streams.info(stream.name),
    () =>
      jsm.streams.add({
        name: stream.name,
        subjects: [...stream.subjects],
        retention: RetentionPolicy.Workqueue,
        duplicate_window: nanos(DEDUPE_WINDOW_MS),
        num_replicas: replicas,
      }),
  );
  // An existing consumer takes this replica's settings (its ack wait follows WEBHOOK_TIMEOUT_MS).
  await ensureDurable(
    jsm,
    stream.name,
    {
      durable_name: durable,
      deliver_policy: DeliverPolicy.All,
      ack_policy: AckPolicy.Explicit,
      filter_subject: deliver.subject,
      max_deliver: -1,
      max_ack_pending: -1,
      ack_wait: nanos(ackWaitMs),
    },
    ["filter_subject", "max_deliver", "max_ack_pending", "ack_wait"],
  );
  return js.consumers.get(stream.name, durable);
}

/** Queues one delivery; the same delivery queued twice (a redelivered event) is deduplicated by id. */
export async function enqueueDelivery(
  js: JetStreamClient,
  d: WebhookDelivery,
  trace: TraceContext,
): Promise<void> {
  const body = new TextEncoder().encode(JSON.stringify(WebhookWork.deliver.payload.parse(d)));
  await publishTraced(js, WebhookWork.deliver.subject, body, d.deliveryId, trace);
}
