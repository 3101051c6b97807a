import { AppError, errorBody } from "@ramp/contracts";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { GatewayEnv } from "./env.ts";

/**
 * Every 503 says when to try again: a gateway at capacity, a service refusing work while it is behind
 * (a sandbox deposit), a dependency that did not answer. Long enough for work in flight to finish; a
 * client retrying sooner only adds to the queue.
 */
const RETRY_AFTER_S = 1;

const unavailable = (c: Context<GatewayEnv>, message: string | string[]) => {
  c.header("Retry-After", String(RETRY_AFTER_S));
  return c.json(errorBody(503, message), 503);
};

/** The one place where failures become HTTP: NestJS-style bodies, never a stack trace. */
export function onError(err: Error, c: Context<GatewayEnv>) {
  if (err instanceof AppError) {
    if (err.status === 503) return unavailable(c, err.detail);
    return c.json(errorBody(err.status, err.detail), err.status as ContentfulStatusCode);
  }
  if (err instanceof HTTPException && err.status < 500) {
    return c.json(errorBody(err.status, err.message || "Bad Request"), err.status);
  }
  c.var.log?.error({ err }, "unhandled error");
  return unavailable(c, "Service Unavailable");
}

export function notFoundHandler(c: Context<GatewayEnv>) {
  return c.json(errorBody(404, `Cannot ${c.req.method} ${c.req.path}`), 404);
}
