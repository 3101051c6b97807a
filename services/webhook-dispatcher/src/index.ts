export { loadWebhookDispatcherConfig, WebhookDispatcherConfig } from "./config.ts";
export { endpointKey } from "./endpoint-health.ts";
export { startWebhookDispatcher } from "./service.ts";
