export { createRampClient, type RampClient } from "./client.ts";
export { type ConsoleClient, type ConsoleClientOptions, createConsoleClient, type Page } from "./console.ts";
export { RampApiError, WebhookVerificationError, type WebhookVerificationReason } from "./errors.ts";
export type { RetryOptions } from "./retry.ts";
export type { CallOptions, RampClientOptions } from "./transport.ts";
export type * from "./types.ts";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookPayload,
} from "./webhooks.ts";
