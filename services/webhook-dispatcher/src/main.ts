import { runMain } from "@ramp/runtime";
import { loadWebhookDispatcherConfig } from "./config.ts";
import { startWebhookDispatcher } from "./service.ts";

runMain("webhook-dispatcher", () => startWebhookDispatcher(loadWebhookDispatcherConfig(process.env)));
