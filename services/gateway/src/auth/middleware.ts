import { timingSafeEqual } from "node:crypto";
import { AppError, forbidden } from "@ramp/contracts";
import { lazyLogger } from "@ramp/runtime";
import { createMiddleware } from "hono/factory";
import type { GatewayEnv } from "../env.ts";
import type { KeyStore } from "./api-keys.ts";

/** 401 `No API key provided` when absent, `Invalid API key` when it matches no business. */
export function apiKeyAuth(store: KeyStore) {
  return createMiddleware<GatewayEnv>(async function apiKeyAuth(c, next) {
    const key = c.req.header("x-api-key");
    if (!key) throw new AppError("UNAUTHORIZED", "No API key provided");
    const caller = await store.authenticate(key);
    if (!caller) throw new AppError("UNAUTHORIZED", "Invalid API key");
    // A suspended business's keys still authenticate (401 stays "who are you"), but do nothing.
    if (await store.suspended(caller.businessId)) throw forbidden("Business suspended");
    c.set("caller", caller);
    // `c.get`, not `c.var`: Hono builds a fresh object of every variable on each `c.var` read.
    c.set("trace", { ...c.get("trace"), businessId: caller.businessId });
    c.set(
      "log",
      lazyLogger(c.get("log"), () => ({ businessId: caller.businessId })),
    );
    await next();
  });
}

export function adminAuth(token: string) {
  const expected = Buffer.from(`Bearer ${token}`);
  return createMiddleware<GatewayEnv>(async function adminAuth(c, next) {
    const given = Buffer.from(c.req.header("authorization") ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AppError("UNAUTHORIZED", "Invalid admin token");
    }
    await next();
  });
}
