import type { WebhookType } from "@ramp/contracts";
import type { ConfigStore } from "./config-store.ts";
import { postWebhook, type SendOptions, type SendResult } from "./sender.ts";
import { signedHeaders } from "./signing.ts";

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
  return postWebhook(url, body, signedHeaders(ctx.headerPrefix, secret, body), ctx.send);
}

/** The reply of the test and redeliver subjects (DESIGN §9). */
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
