import { AppError, Routes } from "@ramp/contracts";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { isConsolePath } from "./console-path.ts";
import type { GatewayEnv } from "./env.ts";

/** How many requests of each class one gateway process works on at once; 0 is unbounded. */
export interface InFlightBounds {
  reads: number;
  writes: number;
}

/**
 * Reads (GET, HEAD) and writes are bounded apart: a flood of order creations, each holding several
 * database writes, must not take the place of rate reads that cost a cached lookup.
 */
export type RouteClass = keyof InFlightBounds;
export const routeClassOf = (method: string): RouteClass =>
  method === "GET" || method === "HEAD" ? "reads" : "writes";

/**
 * Never shed: probes (an orchestrator that sees a 503 on /healthz restarts a gateway that is only
 * busy) and the operators' console, which is how someone looks at an overloaded system.
 */
const UNBOUNDED_PATHS = new Set<string>([Routes.healthz.path, Routes.readyz.path]);
export const isShedExempt = (path: string) => UNBOUNDED_PATHS.has(path) || isConsolePath(path);

/**
 * Past its bound the gateway answers 503 with Retry-After at once instead of accepting the request:
 * a request accepted beyond capacity only waits behind the others until the 10 s timeout, and every
 * client then sees the timeout rather than some clients seeing a fast, retryable refusal. Counted from
 * the moment the request enters until its handler returns (a streamed body is not counted after that).
 */
export function shedOverload(bounds: InFlightBounds): MiddlewareHandler<GatewayEnv> {
  const inFlight: Record<RouteClass, number> = { reads: 0, writes: 0 };
  return createMiddleware<GatewayEnv>(async function shedOverload(c, next) {
    const cls = routeClassOf(c.req.method);
    const bound = bounds[cls];
    if (bound === 0 || isShedExempt(c.req.path)) return next();
    if (inFlight[cls] >= bound) {
      // 503 with Retry-After (errors.ts).
      throw new AppError("UNAVAILABLE", "Service Unavailable: the gateway is at capacity, retry later");
    }
    inFlight[cls]++;
    try {
      await next();
    } finally {
      inFlight[cls]--;
    }
  });
}
