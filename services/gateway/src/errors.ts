import { AppError, errorBody } from "@ramp/contracts";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { GatewayEnv } from "./env.ts";

/** The one place where failures become HTTP: NestJS-style bodies, never a stack trace. */
export function onError(err: Error, c: Context<GatewayEnv>) {
  if (err instanceof AppError) {
    return c.json(errorBody(err.status, err.detail), err.status as ContentfulStatusCode);
  }
  if (err instanceof HTTPException && err.status < 500) {
    return c.json(errorBody(err.status, err.message || "Bad Request"), err.status);
  }
  c.var.log?.error({ err }, "unhandled error");
  return c.json(errorBody(503, "Service Unavailable"), 503);
}

export function notFoundHandler(c: Context<GatewayEnv>) {
  return c.json(errorBody(404, `Cannot ${c.req.method} ${c.req.path}`), 404);
}
