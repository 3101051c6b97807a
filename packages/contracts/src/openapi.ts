import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ErrorBody } from "./errors.ts";
import { CSRF_HEADER, SESSION_COOKIE } from "./http/console.ts";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
  idempotencyErrors,
} from "./http/idempotency.ts";
import { isIdempotent, isKeyed, type RouteAuth, type RouteDef, RouteTags } from "./http/route.ts";
import { Routes } from "./routes.ts";

const errorText: Record<number, string> = {
  400: "Invalid request",
  403: "Forbidden: the role may not do this, a wrong CSRF token, or a suspended business",
  404: "Not found",
  ...idempotencyErrors,
  429: "Rate limited",
  503: "Unavailable: a dependency is down or the service is at capacity; retry after Retry-After",
};
const unauthorizedText: Record<RouteAuth, string> = {
  apiKey: "Missing or invalid x-api-key",
  sandbox: "Missing or invalid x-api-key",
  admin: "Missing or invalid admin bearer token",
  console: "Not signed in, or the session ended",
  none: "Unauthorized",
};

/** On every POST and PATCH: the optional key, and the mark of an answer replayed for it. */
const idempotencyKeyHeader = z.object({ [IDEMPOTENCY_KEY_HEADER]: IdempotencyKey.optional() });
const replayedHeader = z.object({
  [IDEMPOTENT_REPLAYED_HEADER]: z
    .literal("true")
    .optional()
    .meta({
      description: `Present when this is the kept answer to an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}`,
    }),
});

type Response = {
  description: string;
  content?: Record<string, { schema: z.ZodType }>;
  headers?: z.ZodObject;
};

export function buildOpenApiDocument(serverUrl = "/") {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent("securitySchemes", "apiKey", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  const admin = registry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN",
  });
  const session = registry.registerComponent("securitySchemes", "consoleSession", {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: `The session POST /console/v1/session sets; unsafe requests also send ${CSRF_HEADER}`,
  });
  const security: Record<RouteAuth, Record<string, string[]>[]> = {
    apiKey: [{ [apiKey.name]: [] }],
    sandbox: [{ [apiKey.name]: [] }],
    admin: [{ [admin.name]: [] }],
    console: [{ [session.name]: [] }],
    none: [],
  };
  for (const [operationId, route] of Object.entries(Routes as Record<string, RouteDef>)) {
    const keyed = isKeyed(route);
    const { errorBodies } = RouteTags[route.tag];
    const idempotent = isIdempotent(route);
    const { status, schema, contentType = "application/json" } = route.ok;
    const responses: Record<string, Response> = {
      [status]: {
        description: "Success",
        ...(schema ? { content: { [contentType]: { schema } } } : {}),
        ...(idempotent ? { headers: replayedHeader } : {}),
      },
    };
    const errors = [
      ...route.errors,
      ...(route.auth === "none" ? [] : [401]),
      ...(idempotent ? [409, 422] : []),
      ...(keyed ? [429] : []),
      ...(errorBodies ? [503] : []),
    ];
    for (const code of errors) {
      responses[code] = {
        description: code === 401 ? unauthorizedText[route.auth] : (errorText[code] ?? "Error"),
        ...(errorBodies ? { content: { "application/json": { schema: ErrorBody } } } : {}),
      };
    }
    // The generator reads parameters off an object schema; a refined one (one of two fields) still is.
    const { params, query, body } = route as { params?: z.ZodObject; query?: z.ZodObject; body?: z.ZodType };
    registry.registerPath({
      operationId,
      method: route.method,
      path: route.path,
      summary: route.summary,
      tags: [route.tag],
      security: security[route.auth],
      request: {
        ...(query ? { query } : {}),
        ...(params ? { params } : {}),
        ...(idempotent ? { headers: idempotencyKeyHeader } : {}),
        ...(body ? { body: { content: { "application/json": { schema: body } } } } : {}),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { title: "Ramp Service API", version: "2.0.0" },
    servers: [{ url: serverUrl }],
    tags: Object.entries(RouteTags).map(([name, { description }]) => ({ name, description })),
  });
}
