import { bootService } from "@ramp/runtime";
import type { WebhookDispatcherConfig } from "./config.ts";

export async function startWebhookDispatcher(config: WebhookDispatcherConfig) {
  return bootService("webhook-dispatcher", config, async () => []);
}
