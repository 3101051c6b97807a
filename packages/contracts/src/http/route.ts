import type { z } from "zod";
import type { MemberRole, OperatorRole } from "../enums.ts";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/**
 * Who may call a route: an API key (`x-api-key`); an API key on a sandbox deployment only (the
 * route does not exist with RAMP_SANDBOX off); the operator's bearer token; a signed-in person's
 * console session (the `ramp_session` cookie, `access` saying which roles); or anyone.
 */
export type RouteAuth = "apiKey" | "sandbox" | "admin" | "console" | "none";

/**
 * Which signed-in people a console route serves; everyone else gets 403 `Forbidden`. A kind left
 * out is refused whatever its role. `beforeTotp` marks the few routes an operator may use before
 * enrolling TOTP in production mode (everything else answers 403 until then).
 */
export interface ConsoleAccess {
  readonly operator?: readonly OperatorRole[];
  readonly member?: readonly MemberRole[];
  readonly beforeTotp?: true;
}

/** The groups of the API reference; `errorBodies` says whether its failures are NestJS-style error bodies. */
export const RouteTags = {
  Public: { description: "The integration API, authenticated with x-api-key", errorBodies: true },
  Sandbox: { description: "Stand-ins for payers; served only when RAMP_SANDBOX is on", errorBodies: true },
  Admin: { description: "The operator API, authenticated with the admin bearer token", errorBodies: true },
  Console: {
    description: "The console API for operators and business members, authenticated with the session cookie",
    errorBodies: true,
  },
  Health: { description: "Liveness and readiness for orchestrators", errorBodies: false },
  Reference: { description: "This document and its interactive viewer", errorBodies: false },
  WebConsole: {
    description: "The web console's pages and built files, served under /console/",
    errorBodies: false,
  },
} as const;
export type RouteTag = keyof typeof RouteTags;

/**
 * One HTTP route, the only place its method, path and schemas are written: the gateway registers
 * it from here and the OpenAPI document is generated from here. The path uses OpenAPI's `{name}`
 * for parameters.
 */
export interface RouteDef {
  readonly method: HttpMethod;
  readonly path: `/${string}`;
  readonly summary: string;
  readonly tag: RouteTag;
  readonly auth: RouteAuth;
  /** Required when `auth` is `console`. */
  readonly access?: ConsoleAccess;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /**
   * The success answer. `contentType` defaults to JSON (written by the gateway as plain decimals);
   * another type means the handler gives the body itself; no `schema` means an empty answer.
   */
  readonly ok: {
    readonly status: 200 | 201 | 202 | 204;
    readonly schema?: z.ZodType;
    readonly contentType?: string;
  };
  /** The failures particular to this route; 401, 409/422, 429 and 503 follow from `auth` and `tag`. */
  readonly errors: readonly number[];
}

/** The per-key rate limit applies to the routes an API key calls. */
export const isKeyed = (route: RouteDef) => route.auth === "apiKey" || route.auth === "sandbox";

/** Idempotency-Key applies to the POST and PATCH routes an API key calls (its records are per business). */
export const isIdempotent = (route: RouteDef) =>
  isKeyed(route) && (route.method === "post" || route.method === "patch");

/** Every write through the console or the admin API leaves exactly one audit entry. */
export const isAudited = (route: RouteDef) =>
  route.method !== "get" && (route.path.startsWith("/console/v1/") || route.path.startsWith("/admin/v1/"));

/** The path with each `{name}` replaced by `fill(name)` (Hono's `:name`, or an encoded value). */
export const mapPathParams = (path: string, fill: (name: string) => string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => fill(name));

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a route's handler receives: the validated parameters, query and body (zod output). */
export interface RouteInput<R extends RouteDef> {
  params: Out<R["params"]>;
  query: Out<R["query"]>;
  body: Out<R["body"]>;
}

/**
 * What a route's handler gives back on success: the JSON value its schema describes, the body itself
 * for another content type, nothing for an empty answer.
 */
export type RouteResult<R extends RouteDef> = R["ok"] extends { contentType: string }
  ? string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>
  : R["ok"] extends { schema: infer S extends z.ZodType }
    ? z.input<S>
    : // biome-ignore lint/suspicious/noConfusingVoidType: an empty answer's handler simply returns nothing
      void;
