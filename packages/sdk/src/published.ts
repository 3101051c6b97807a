// What the packed @ramp/sdk exports (scripts/build.ts): the public API's client and webhook
// verification. The console client stays inside the repository until its declarations are spelled out
// without the contract the way types.ts's are (its types still name @ramp/contracts and zod).
export { createRampClient, type RampClient } from "./client.ts";
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
