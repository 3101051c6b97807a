import type { NatsConnection } from "@nats-io/transport-node";
import { buildOpenApiDocument } from "@ramp/contracts";
import {
  healthHandler,
  httpDuration,
  httpRequests,
  inSpan,
  type Logger,
  SpanKind,
  SpanStatusCode,
  traceFromHeader,
  traceIdOf,
} from "@ramp/runtime";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { KeyStore } from "./auth/api-keys.ts";
import { adminAuth, apiKeyAuth } from "./auth/middleware.ts";
import { bodyLimits } from "./body.ts";
import type { GatewayConfig } from "./config.ts";
import { registerDocs } from "./docs-page.ts";
import type { GatewayEnv } from "./env.ts";
import { notFoundHandler, onError } from "./errors.ts";
import type { IdempotencyStore } from "./idempotency/idempotency-store.ts";
import { idempotency } from "./idempotency/middleware.ts";
import { rateLimit } from "./rate-limit.ts";
import { adminRoutes } from "./routes/admin.ts";
import { publicBankList, publicRoutes } from "./routes/public.ts";
import { quoteRoutes } from "./routes/quotes.ts";
import { sandboxRoutes } from "./routes/sandbox.ts";
import { transactionRoutes } from "./routes/transactions.ts";

export interface AppDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  keys: KeyStore;
  idempotency: IdempotencyStore;
  log: Logger;
  ready: () => Promise<boolean>;
}

function requestContext(log: Logger) {
  return createMiddleware<GatewayEnv>(async function requestContext(c, next) {
    const requestId = c.req.header("x-request-id") || undefined;
    const method = c.req.method;
    const span = {
      kind: SpanKind.SERVER,
      // A trace started by an ingress or proxy in front of the gateway is continued.
      parent: traceFromHeader(c.req.header("traceparent"), requestId),
      requestId,
      attributes: { "http.request.method": method, "url.path": c.req.path },
    };
    await inSpan(`${method}`, span, async (trace, s) => {
      c.set("trace", trace);
      c.set("log", log.child({ requestId: trace.requestId, traceId: traceIdOf(trace) }));
      c.header("x-request-id", trace.requestId);
      const started = performance.now();
      await next();
      const seconds = (performance.now() - started) / 1000;
      // The matched pattern, not the path: ids must not become label values or span names.
      const route = routePath(c, -1);
      const status = c.res.status;
      httpRequests.inc({ method, route, status: String(status) });
      httpDuration.observe({ method, route }, seconds);
      s.updateName(`${method} ${route}`);
      s.setAttributes({ "http.route": route, "http.response.status_code": status });
      if (status >= 500) s.setStatus({ code: SpanStatusCode.ERROR });
      c.var.log.info({ method, path: c.req.path, status, ms: Math.round(seconds * 1000) }, "request");
    });
  });
}

export function createApp(deps: AppDeps) {
  const app = new Hono<GatewayEnv>();
  app.onError(onError);
  app.notFound(notFoundHandler);
  app.use(requestContext(deps.log));
  app.use(bodyLimits());

  const health = healthHandler(deps.ready);
  app.get("/healthz", async (c) => {
    const r = await health("/healthz");
    return c.json(r.body, 200);
  });
  app.get("/readyz", async (c) => {
    const r = await health("/readyz");
    return c.json(r.body, r.status === 200 ? 200 : 503);
  });

  const openapi = buildOpenApiDocument(deps.config.PUBLIC_BASE_URL ?? "/");
  app.get("/openapi.json", (c) => c.json(openapi));
  registerDocs(app);

  app.route("/pub/bank", publicBankList(deps.nc));

  const auth = apiKeyAuth(deps.keys);
  const limit = rateLimit({
    perSecond: deps.config.RATE_LIMIT_PER_SECOND,
    burst: deps.config.RATE_LIMIT_BURST,
  });
  // POST/PATCH only; after auth (records are per business) and the rate limit (a 429 is never stored).
  const idem = idempotency(deps.idempotency);
  app.use("/pub/v2/*", auth, limit, idem);
  app.route("/pub/v2", publicRoutes(deps.nc));
  app.route("/pub/v2", transactionRoutes(deps.nc));
  app.route("/pub/v2", quoteRoutes(deps.nc));

  if (deps.config.RAMP_SANDBOX) {
    app.use("/sandbox/v2/*", auth, limit, idem);
    app.route("/sandbox/v2", sandboxRoutes(deps.nc));
  }

  app.use("/admin/v1/*", adminAuth(deps.config.ADMIN_TOKEN));
  app.route("/admin/v1", adminRoutes(deps.nc, deps.keys));
  return app;
}
