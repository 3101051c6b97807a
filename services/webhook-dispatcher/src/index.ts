export { loadWebhookDispatcherConfig, WebhookDispatcherConfig } from "./config.ts";
export { startWebhookDispatcher } from "./service.ts";
