import { randomUUID } from "node:crypto";
import { ChangeFeeds, Consumers } from "@ramp/contracts";
import { bootService, consume, openChangeFeed, retryJetStreamSetup, signingOf } from "@ramp/runtime";
import type { AttemptContext } from "./attempt.ts";
import { createAttemptLog } from "./attempt-log.ts";
import { secretKeyOf, type WebhookDispatcherConfig } from "./config.ts";
import { createConfigStore, signingSecrets } from "./config-store.ts";
import { createDeliveriesStore } from "./deliveries-store.ts";
import { startIntake } from "./destinations.ts";
import { createEndpointHealth } from "./endpoint-health.ts";
import { serveHandlers } from "./handlers.ts";
import { openLanes } from "./lanes.ts";
import { startScheduler } from "./scheduler.ts";
import { enqueueDelivery, openWorkQueue } from "./work-queue.ts";

export async function startWebhookDispatcher(config: WebhookDispatcherConfig) {
  return bootService("webhook-dispatcher", config, async ({ nc, js, db, log }) => {
    const configs = createConfigStore(db, secretKeyOf(config));
    const deliveries = createDeliveriesStore(db);
    await deliveries.ensureIndexes();
    const attemptLog = createAttemptLog({ store: deliveries, log });
    // Every event reads its key's URLs: served from memory, dropped on every replica when they change.
    const changes = await openChangeFeed(nc, ChangeFeeds.webhooks, log, config.NATS_STREAM_REPLICAS);
    const cachedConfig = changes.cache("config", (apiKeyId: string) => configs.get(apiKeyId));
    // Secrets are decrypted once per process and dropped on every replica when rotated.
    const cachedSigning = changes.cache("signing", (apiKeyId: string) => configs.signing(apiKeyId));
    const health = createEndpointHealth({
      db,
      js,
      changes,
      log,
      opts: {
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
        recheckMs: config.WEBHOOK_PAUSED_RECHECK_MS,
      },
    });
    await health.init();
    const attempt: AttemptContext = {
      secretsOf: async (apiKeyId) => signingSecrets(await cachedSigning.get(apiKeyId)),
      headerPrefix: config.WEBHOOK_HEADER_PREFIX,
      send: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    };
    // Long enough that a live attempt (bounded by the timeout) never loses its lease or its message.
    const ackWaitMs = config.WEBHOOK_TIMEOUT_MS + 30_000;
    const scheduler = await startScheduler({
      signing: signingOf(nc),
      consumer: await retryJetStreamSetup(
        "webhook work queue",
        () => openWorkQueue(nc, js, ackWaitMs, config.NATS_STREAM_REPLICAS),
        { log },
      ),
      deliver: {
        lanes: await retryJetStreamSetup("webhook lanes", () => openLanes(nc, config.NATS_STREAM_REPLICAS), {
          log,
        }),
        attemptLog,
        attempt,
        schedule: config.WEBHOOK_RETRY_SCHEDULE,
        leaseMs: ackWaitMs,
        holder: randomUUID(),
        health,
      },
      log,
      concurrency: Math.max(1, config.WEBHOOK_CONCURRENCY),
      perEndpoint: Math.max(1, config.WEBHOOK_ENDPOINT_CONCURRENCY),
      ackWaitMs,
      handOver: (d, trace) => enqueueDelivery(js, d, trace),
    });
    const intake = await startIntake({
      nc,
      js,
      log,
      configOf: (id) => cachedConfig.get(id),
      offer: scheduler.offer,
      ackWaitMs,
    });
    const handlers = serveHandlers({
      nc,
      log,
      configs,
      deliveries,
      attemptLog,
      attempt,
      configChanged: (apiKeyId) => changes.changed("config", apiKeyId),
      signingChanged: async (apiKeyId) => {
        await changes.changed("signing", apiKeyId);
        await changes.changed("config", apiKeyId);
      },
      urlsSaved: health.saved,
    });
    const resumes = await consume(nc, {
      ...Consumers.webhookExceptionResolved,
      log,
      handler: (ev, c) => health.resolved(ev, c.trace),
    });
    // Stopped in reverse. The scheduler before the intake: it takes no more work, hands what waits in
    // memory back to the work queue (answering the events whose first attempts were waiting, which the
    // intake's stop waits for) and lets the attempts under way finish. Stopped after the intake, it
    // would work off its whole queue first: behind a slow receiver, longer than a stop may take. Then
    // the intake (an event arriving meanwhile is queued as a job), and last the delivery log is flushed.
    return [
      deliveries.startBackfill(log),
      changes,
      attemptLog,
      ...handlers,
      ...intake,
      scheduler,
      resumes,
      health.startSweeper(),
    ];
  });
}
