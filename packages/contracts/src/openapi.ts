import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ErrorBody } from "./errors.ts";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
  idempotencyErrors,
} from "./http/idempotency.ts";
import { type RouteAuth, routeGroups } from "./openapi-routes.ts";

const errorText: Record<number, string> = {
  400: "Invalid request",
  404: "Not found",
  ...idempotencyErrors,
  429: "Rate limited",
  503: "A dependency is unavailable; retry with backoff",
};
const unauthorizedText: Record<RouteAuth, string> = {
  apiKey: "Missing or invalid x-api-key",
  admin: "Missing or invalid admin bearer token",
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
  const security: Record<RouteAuth, Record<string, string[]>[]> = {
    apiKey: [{ [apiKey.name]: [] }],
    admin: [{ [admin.name]: [] }],
    none: [],
  };
  for (const group of routeGroups) {
    for (const route of group.routes) {
      const idempotent = group.keyed && route.method !== "get";
      const { schema, contentType = "application/json", status } = route.ok;
      const responses: Record<string, Response> = {
        [status]: {
          description: "Success",
          ...(schema ? { content: { [contentType]: { schema } } } : {}),
          ...(idempotent ? { headers: replayedHeader } : {}),
        },
      };
      const errors = [
        ...route.errors,
        ...(group.auth === "none" ? [] : [401]),
        ...(idempotent ? [409, 422] : []),
        ...(group.keyed ? [429] : []),
        ...(group.errorBodies ? [503] : []),
      ];
      for (const code of errors) {
        responses[code] = {
          description: code === 401 ? unauthorizedText[group.auth] : (errorText[code] ?? "Error"),
          ...(group.errorBodies ? { content: { "application/json": { schema: ErrorBody } } } : {}),
        };
      }
      registry.registerPath({
        method: route.method,
        path: route.path,
        summary: route.summary,
        tags: [group.tag],
        security: security[group.auth],
        request: {
          ...(route.query ? { query: route.query } : {}),
          ...(route.params ? { params: route.params } : {}),
          ...(idempotent ? { headers: idempotencyKeyHeader } : {}),
          ...(route.body ? { body: { content: { "application/json": { schema: route.body } } } } : {}),
        },
        responses,
      });
    }
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { title: "Ramp Service API", version: "2.0.0" },
    servers: [{ url: serverUrl }],
    tags: [
      { name: "Public", description: "The integration API, authenticated with x-api-key" },
      { name: "Sandbox", description: "Stand-ins for payers; served only when RAMP_SANDBOX is on" },
      { name: "Admin", description: "The operator API, authenticated with the admin bearer token" },
      { name: "Health", description: "Liveness and readiness for orchestrators" },
    ],
  });
}
