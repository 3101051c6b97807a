import { bootService, createClaims } from "@ramp/runtime";
import type { AttemptContext } from "./attempt.ts";
import { secretKeyOf, type WebhookDispatcherConfig } from "./config.ts";
import { createConfigStore } from "./config-store.ts";
import { createDeliveriesStore } from "./deliveries-store.ts";
import { startIntake } from "./destinations.ts";
import { serveHandlers } from "./handlers.ts";
import { createLanes } from "./lanes.ts";
import { startScheduler } from "./scheduler.ts";

export async function startWebhookDispatcher(config: WebhookDispatcherConfig) {
  return bootService("webhook-dispatcher", config, async ({ nc, db, log }) => {
    const configs = createConfigStore(db, secretKeyOf(config));
    const deliveries = createDeliveriesStore(db);
    await deliveries.ensureIndexes();
    const attempt: AttemptContext = {
      configs,
      headerPrefix: config.WEBHOOK_HEADER_PREFIX,
      send: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    };
    const lanes = createLanes(createClaims(db));
    const schedule = config.WEBHOOK_RETRY_SCHEDULE;
    // Long enough that a live attempt (bounded by the timeout) never loses its lease.
    const leaseMs = config.WEBHOOK_TIMEOUT_MS + 30_000;
    const scheduler = startScheduler({
      store: deliveries,
      lanes,
      attempt,
      log,
      schedule,
      concurrency: Math.max(1, config.WEBHOOK_CONCURRENCY),
      pollMs: Math.max(50, config.WEBHOOK_POLL_MS),
      leaseMs,
    });
    const intake = await startIntake({
      nc,
      log,
      configs,
      deliveries,
      scheduler,
      firstDelayMs: (schedule[0] ?? 0) * 1000,
    });
    // Stopped in reverse: intake first (no new work), then the scheduler finishes in-flight attempts.
    return [scheduler, ...serveHandlers({ nc, log, configs, deliveries, attempt }), ...intake];
  });
}
