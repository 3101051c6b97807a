import type { NatsConnection } from "@nats-io/transport-node";
import {
  badRequest,
  isAllowedWebhookUrl,
  NOT_PUBLIC_WEBHOOK_URL,
  notFound,
  Rpc,
  samplePayment,
  sampleTransaction,
  stringifyJson,
} from "@ramp/contracts";
import { type Logger, serveRpc, type TraceContext } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import { type AttemptContext, attemptDelivery, testResult } from "./attempt.ts";
import type { AttemptLog } from "./attempt-log.ts";
import type { ConfigStore } from "./config-store.ts";
import type { DeliveriesStore } from "./deliveries-store.ts";

const QUEUE = "webhook-dispatcher";

export interface HandlerDeps {
  nc: NatsConnection;
  log: Logger;
  configs: ConfigStore;
  deliveries: DeliveriesStore;
  attemptLog: AttemptLog;
  attempt: AttemptContext;
  /** Tells every replica's config cache that a key's config changed. */
  configChanged(apiKeyId: string): Promise<void>;
  /** Tells every replica that a key's signing secrets changed (a rotation). */
  signingChanged(apiKeyId: string): Promise<void>;
  /** URLs saved (again): a paused one resumes (endpoint-health.ts). */
  urlsSaved?(urls: string[], trace: TraceContext): Promise<void>;
}

/** The request/reply side: config, test sends and the delivery log. */
export function serveHandlers(deps: HandlerDeps) {
  const { nc, log, configs, deliveries, attemptLog, attempt } = deps;
  return [
    serveRpc(nc, Rpc.webhookConfigGet, QUEUE, log, ({ apiKeyId }) => configs.get(apiKeyId)),

    serveRpc(nc, Rpc.webhookConfigUpdate, QUEUE, log, async ({ apiKeyId, body }, ctx) => {
      // Checked when saved, so a URL that could never be delivered to is refused up front.
      const urls = [body.rampWebhookURL, body.paymentWebhookURL].filter((u): u is string => !!u);
      if (urls.some((u) => !isAllowedWebhookUrl(u, attempt.send.allowPrivate)))
        throw badRequest(NOT_PUBLIC_WEBHOOK_URL);
      const updated = await configs.update(apiKeyId, body);
      await deps.configChanged(apiKeyId);
      await deps.urlsSaved?.(urls, ctx.trace);
      ctx.log.info({ apiKeyId, fields: Object.keys(body) }, "webhook config updated");
      return updated;
    }),

    serveRpc(nc, Rpc.webhookSecretRotate, QUEUE, log, async ({ apiKeyId, overlapHours }, ctx) => {
      const rotated = await configs.rotate(apiKeyId, overlapHours);
      await deps.signingChanged(apiKeyId);
      ctx.log.info({ apiKeyId, overlapHours }, "webhook secret rotated");
      return rotated;
    }),

    // A signed sample sent synchronously; nothing but the attempt record is created.
    serveRpc(nc, Rpc.webhookTest, QUEUE, log, async ({ apiKeyId, type }) => {
      const config = await configs.get(apiKeyId);
      const field = type === "RAMP" ? "rampWebhookURL" : "paymentWebhookURL";
      const url = config[field];
      if (!url) throw badRequest(`No ${field} configured for this API key`);
      const sample = type === "RAMP" ? sampleTransaction() : samplePayment();
      const body = stringifyJson(sample);
      const r = await attemptDelivery(attempt, apiKeyId, url, body);
      const deliveryId = `test_${new ObjectId().toHexString()}`;
      attemptLog.record({ deliveryId, apiKeyId, type, subjectId: sample.id, url, attempt: 1, body }, r);
      return testResult(type, url, r);
    }),

    // The log is written in batches: flushing first shows at least every attempt this replica made.
    serveRpc(nc, Rpc.webhookDeliveries, QUEUE, log, async ({ apiKeyId, id, limit }) => {
      await attemptLog.flush().catch(() => undefined);
      return deliveries.listAttempts(apiKeyId, id, Math.min(Math.max(limit, 1), 200));
    }),

    serveRpc(nc, Rpc.webhookDeliveryPage, QUEUE, log, async (query) => {
      await attemptLog.flush().catch(() => undefined);
      return deliveries.pageAttempts(query);
    }),

    // Sends the stored body again now, freshly signed, whatever state the delivery is in. A manual
    // extra send: it is logged but leaves the scheduled delivery's own state alone.
    serveRpc(nc, Rpc.webhookRedeliver, QUEUE, log, async ({ apiKeyId, deliveryId }, ctx) => {
      await attemptLog.flush().catch(() => undefined);
      const d = await deliveries.lastAttempt(apiKeyId, deliveryId);
      // Attempts logged before the log carried bodies cannot be re-sent.
      if (!d?.body) throw notFound("Delivery not found");
      const r = await attemptDelivery(attempt, d.apiKeyId, d.url, d.body);
      const { type, subjectId, url, body } = d;
      attemptLog.record({ deliveryId, apiKeyId, type, subjectId, url, attempt: d.attempt + 1, body }, r);
      ctx.log.info({ deliveryId, delivered: r.delivered }, "manual redelivery");
      return testResult(d.type, d.url, r);
    }),
  ];
}
