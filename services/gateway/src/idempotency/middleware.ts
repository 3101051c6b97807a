import {
  AppError,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
  idempotencyErrors,
} from "@ramp/contracts";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import type { GatewayEnv } from "../env.ts";
import { downstreamKey, requestFingerprint } from "./fingerprint.ts";
import type { IdempotencyStore, StoredResponse } from "./idempotency-store.ts";
import { restoreSecrets, type SecretSources, withholdSecrets } from "./secret-fields.ts";

/**
 * A final answer is one a repeat must get again: any 2xx, and a 4xx except 409 (the state may change)
 * and 429 (the limit refills). A 5xx is not final: the repeat runs again, and the services that own
 * an effect dedupe it by the key they receive, so running again never does anything twice.
 */
const isFinal = (status: number) =>
  (status >= 200 && status < 300) || (status >= 400 && status < 500 && status !== 409 && status !== 429);

/**
 * `Idempotency-Key`, on the routes `isIdempotent` names (POST and PATCH with an API key), after
 * authentication (records are per business) and the rate limit (a 429 is never stored).
 * The first request with a key runs and its final response is kept for the store's TTL; a repeat with
 * the same method, path and body gets that response again with `Idempotent-Replayed: true`.
 * A secret the response carries (a field named in `secrets`) is not kept: the replay fetches it again.
 */
export function idempotency(store: IdempotencyStore, secrets: SecretSources) {
  return createMiddleware<GatewayEnv>(async function idempotency(c, next) {
    const header = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (header === undefined) return next();
    const parsed = IdempotencyKey.safeParse(header);
    if (!parsed.success)
      throw new AppError("BAD_REQUEST", parsed.error.issues.map((i) => i.message).join("; "));
    const key = parsed.data;

    const { businessId } = c.var.caller;
    const url = new URL(c.req.url);
    const fingerprint = requestFingerprint(c.req.method, url.pathname + url.search, await c.req.text());
    const claim = await store.claim(businessId, key, fingerprint);
    switch (claim.kind) {
      case "mismatch":
        throw new AppError("UNPROCESSABLE", idempotencyErrors[422]);
      case "in-progress":
        throw new AppError("CONFLICT", idempotencyErrors[409]);
      case "replay":
        return replay(c, claim.response, secrets);
    }

    c.set("idempotencyKey", downstreamKey(key, fingerprint));
    try {
      await next();
    } catch (err) {
      // Hono turns handler errors into responses before they get here; anything else is not final.
      await store
        .release(businessId, key, claim.token)
        .catch((e) => c.var.log.warn({ err: e }, "idempotency record not released; its lease frees it"));
      throw err;
    }
    const res = c.res;
    try {
      if (isFinal(res.status)) {
        const kept = withholdSecrets(await res.clone().text(), c.var.caller.apiKeyId, secrets);
        await store.complete(businessId, key, claim.token, {
          status: res.status,
          contentType: res.headers.get("content-type") ?? "application/json",
          body: kept.body,
          ...(kept.withheld ? { withheld: kept.withheld } : {}),
        });
      } else {
        await store.release(businessId, key, claim.token);
      }
    } catch (err) {
      // The caller still gets the real answer. The record stays running until its lease ends; a
      // repeat after that runs again, and the owners' dedupe keeps that from doing anything twice.
      c.var.log.error({ err }, "idempotency record not updated");
    }
  });
}

async function replay(c: Context<GatewayEnv>, stored: StoredResponse, secrets: SecretSources) {
  const body = stored.withheld
    ? await restoreSecrets(stored.body, stored.withheld, secrets, c.var.trace)
    : stored.body;
  c.header("content-type", stored.contentType);
  c.header(IDEMPOTENT_REPLAYED_HEADER, "true");
  return body === ""
    ? c.body(null, stored.status as StatusCode)
    : c.body(body, stored.status as ContentfulStatusCode);
}
