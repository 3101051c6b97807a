import { BaseConfig, loadConfig } from "@ramp/runtime";
import type { z } from "zod";

export const WebhookDispatcherConfig = BaseConfig.extend({});
export type WebhookDispatcherConfig = z.infer<typeof WebhookDispatcherConfig>;
export const loadWebhookDispatcherConfig = (env: Record<string, string | undefined>) =>
  loadConfig(WebhookDispatcherConfig, env);
