import { signedHeaders, type WebhookType } from "@ramp/contracts";
import { webhookAttempts, webhookDuration } from "@ramp/runtime";
import type { ConfigStore } from "./config-store.ts";
import { postWebhook, type SendOptions, type SendResult } from "./sender.ts";

export interface AttemptContext {
  configs: ConfigStore;
  headerPrefix: string;
  send: SendOptions;
}

/** Signs (fresh timestamp, the key's current secret) and posts exactly `body`. */
export async function attemptDelivery(
  ctx: AttemptContext,
  apiKeyId: string | null,
  url: string,
  body: string,
): Promise<SendResult> {
  const secret = apiKeyId ? await ctx.configs.secret(apiKeyId) : null;
  const r = await postWebhook(url, body, signedHeaders(ctx.headerPrefix, secret, body), ctx.send);
  const status = r.statusCode === null ? "none" : `${Math.floor(r.statusCode / 100)}xx`;
  webhookAttempts.inc({ outcome: r.delivered ? "delivered" : "failed", status });
  webhookDuration.observe(r.durationMs / 1000);
  return r;
}

/** The reply of the test and redeliver subjects: `{delivered, type, url, statusCode, durationMs, error}`. */
export function testResult(type: WebhookType, url: string, r: SendResult) {
  return {
    delivered: r.delivered,
    type,
    url,
    statusCode: r.statusCode,
    durationMs: r.durationMs,
    error: r.error,
  };
}
