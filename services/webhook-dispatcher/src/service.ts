import { bootService } from "@ramp/runtime";
import { secretKeyOf, type WebhookDispatcherConfig } from "./config.ts";
import { createConfigStore } from "./config-store.ts";
import { serveHandlers } from "./handlers.ts";

export async function startWebhookDispatcher(config: WebhookDispatcherConfig) {
  return bootService("webhook-dispatcher", config, async ({ nc, db, log }) => {
    const configs = createConfigStore(db, secretKeyOf(config));
    await configs.ensureIndexes();
    return serveHandlers({ nc, log, configs });
  });
}
