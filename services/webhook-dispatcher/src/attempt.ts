import { signedHeaders, type WebhookType } from "@ramp/contracts";
import { inSpan, SpanKind, SpanStatusCode, webhookAttempts, webhookDuration } from "@ramp/runtime";

import { postWebhook, type SendOptions, type SendResult } from "./sender.ts";

export interface AttemptContext {
  /** The secrets that sign a key's delivery now: one, or two during a rotation's overlap. */
  secretsOf(apiKeyId: string): Promise<string[]>;
  headerPrefix: string;
  send: SendOptions;
}

/**
 * Signs (fresh timestamp, the key's current secret, and the previous one during a rotation's overlap) and posts exactly `body`, in a client span under
 * whatever span is active (a queued delivery's, or the test and redeliver requests'). The span names
 * the receiver's host and port only: integrators put tokens in webhook paths and query strings.
 */
export async function attemptDelivery(
  ctx: AttemptContext,
  apiKeyId: string | null,
  url: string,
  body: string,
): Promise<SendResult> {
  return inSpan(
    "POST",
    { kind: SpanKind.CLIENT, attributes: targetAttributes(url) },
    async (_trace, span) => {
      const secret = apiKeyId ? await ctx.secretsOf(apiKeyId) : null;
      const r = await postWebhook(url, body, signedHeaders(ctx.headerPrefix, secret, body), ctx.send);
      const status = r.statusCode === null ? "none" : `${Math.floor(r.statusCode / 100)}xx`;
      webhookAttempts.inc({ outcome: r.delivered ? "delivered" : "failed", status });
      webhookDuration.observe({}, r.durationMs / 1000);
      if (r.statusCode !== null) span.setAttribute("http.response.status_code", r.statusCode);
      if (!r.delivered) span.setStatus({ code: SpanStatusCode.ERROR, message: r.error ?? "not delivered" });
      return r;
    },
  );
}

function targetAttributes(url: string): Record<string, string | number> {
  try {
    const u = new URL(url);
    const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
    return { "http.request.method": "POST", "server.address": u.hostname, "server.port": port };
  } catch {
    return { "http.request.method": "POST" };
  }
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
