import {
  isAudited,
  isIdempotent,
  mapPathParams,
  type RouteAuth,
  type RouteDef,
  type RouteInput,
  type RouteResult,
  routeIdOf,
} from "@ramp/contracts";
import type { Context, Handler, Hono, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { GatewayEnv } from "./env.ts";
import { reply } from "./reply.ts";
import { validate, validateJson } from "./validate.ts";

/** OpenAPI's `/a/{id}` as Hono's `/a/:id`: the one place the two path syntaxes meet. */
export const honoPath = (path: string) => mapPathParams(path, (name) => `:${name}`);

/**
 * A route's handler: its input validated against the entry's schemas, its success value written
 * with the entry's status and content type. A `Response` is sent as it is (for answers whose status
 * is not the entry's, such as readiness).
 */
export type RouteHandler<R extends RouteDef> = (
  c: Context<GatewayEnv>,
  input: RouteInput<R>,
) => Promise<RouteResult<R> | Response> | RouteResult<R> | Response;

type BodyData = string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;

export type Register = <R extends RouteDef>(route: R, handler: RouteHandler<R>) => void;

export interface RegisterOptions {
  /**
   * What runs before validation for each kind of caller (authentication, rate limit); a function
   * when the guard depends on the route (console access).
   */
  guards: Record<
    RouteAuth,
    MiddlewareHandler<GatewayEnv>[] | ((route: RouteDef) => MiddlewareHandler<GatewayEnv>[])
  >;
  /** Runs after the guards on the routes `isIdempotent` names. */
  idempotency: MiddlewareHandler<GatewayEnv>;
  /** Wraps every audited write (after its guards, so the actor is known): one entry per success. */
  audit: (route: RouteDef, action: string) => MiddlewareHandler<GatewayEnv>;
  /** With the sandbox off, `sandbox` routes are not served at all (404). */
  sandbox: boolean;
}

/**
 * What a validator of this request stored: exactly that target, parsed by the entry's own schema. At
 * module level, not a closure per request: under tsx every named closure costs a `__name` call
 * (0.3 µs), which showed in the gateway's profile of the rate path.
 */
const validated = (c: Context<GatewayEnv>, target: "param" | "query" | "json") =>
  c.req.valid(target as never) as unknown;

/**
 * Registers contract routes on `app`: method and path from the entry, then its guards and
 * Idempotency-Key, then validation of path parameters, query and JSON body (the one 400 shape), then the handler.
 */
export function routeRegistrar(app: Hono<GatewayEnv>, opts: RegisterOptions): Register {
  return (route, handler) => {
    if (route.auth === "sandbox" && !opts.sandbox) return;
    const validators: MiddlewareHandler[] = [
      ...(route.params ? [validate("param", route.params)] : []),
      ...(route.query ? [validate("query", route.query)] : []),
      ...(route.body ? [validateJson(route.body)] : []),
    ];
    const { status, schema, contentType } = route.ok;
    const run: Handler<GatewayEnv> = async (c) => {
      const input = {
        params: route.params ? validated(c, "param") : undefined,
        query: route.query ? validated(c, "query") : undefined,
        body: route.body ? validated(c, "json") : undefined,
      } as RouteInput<typeof route>;
      const result: unknown = await handler(c, input);
      if (result instanceof Response) return result;
      if (!schema) return c.body(null, status);
      // A schema means content, so the status is never 204 here.
      const contentful = status as ContentfulStatusCode;
      if (contentType) return c.body(result as BodyData, contentful, { "content-type": contentType });
      return reply(c, result, contentful);
    };
    const guard = opts.guards[route.auth];
    const guards = [
      ...(typeof guard === "function" ? guard(route) : guard),
      ...(isAudited(route) ? [opts.audit(route, routeIdOf(route) ?? `${route.method} ${route.path}`)] : []),
      ...(isIdempotent(route) ? [opts.idempotency] : []),
    ];
    const chain = [...guards, ...validators, run] as Handler<GatewayEnv>[];
    app.on(route.method, honoPath(route.path), ...(chain as [Handler<GatewayEnv>]));
  };
}
