import type { NatsConnection } from "@nats-io/transport-node";
import { Routes } from "@ramp/contracts";
import type { RateCache } from "@ramp/runtime";
import {
  healthHandler,
  httpDuration,
  httpRequests,
  inSpan,
  type Logger,
  lazyLogger,
  SpanKind,
  SpanStatusCode,
  traceFromHeader,
  traceIdOf,
} from "@ramp/runtime";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { auditWrites } from "./audit/middleware.ts";
import type { KeyStore } from "./auth/api-keys.ts";
import { consoleAuth } from "./auth/console.ts";
import { adminAuth, apiKeyAuth } from "./auth/middleware.ts";
import { bodyLimits } from "./body.ts";
import type { GatewayConfig } from "./config.ts";
import { isConsolePath } from "./console-path.ts";
import type { GatewayEnv } from "./env.ts";
import { notFoundHandler, onError } from "./errors.ts";
import type { IdempotencyStore } from "./idempotency/idempotency-store.ts";
import { idempotency } from "./idempotency/middleware.ts";
import type { ConsoleStores } from "./people/stores.ts";
import { rateLimit } from "./rate-limit.ts";
import { openRateLimitStore } from "./rate-limit-store.ts";
import { dependencyStates } from "./readiness.ts";
import { routeRegistrar } from "./register.ts";
import { adminRoutes } from "./routes/admin.ts";
import { consoleAppRoutes } from "./routes/console-app.ts";
import { consoleAuditRoutes } from "./routes/console-audit.ts";
import { consoleBusinessRoutes } from "./routes/console-business.ts";
import { consoleChainOpsRoutes } from "./routes/console-chain-ops.ts";
import { consoleKeyRoutes } from "./routes/console-keys.ts";
import { consoleMoneyRoutes } from "./routes/console-money.ts";
import { consolePeopleRoutes } from "./routes/console-people.ts";
import { consoleRateRoutes } from "./routes/console-rates.ts";
import { consoleTransactionRoutes } from "./routes/console-transactions.ts";
import { publicRoutes } from "./routes/public.ts";
import { quoteRoutes } from "./routes/quotes.ts";
import { referenceRoutes } from "./routes/reference.ts";
import { sandboxRoutes } from "./routes/sandbox.ts";
import { transactionRoutes } from "./routes/transactions.ts";
import { answerSecrets, webhookRoutes } from "./routes/webhooks.ts";
import { shedOverload } from "./shed.ts";
import { SplitRouter } from "./split-router.ts";

export interface AppDeps {
  config: GatewayConfig;
  nc: NatsConnection;
  keys: KeyStore;
  rates: RateCache;
  idempotency: IdempotencyStore;
  console: ConsoleStores;
  /** The clock of sessions, lockout and TOTP (tests move it instead of sleeping). */
  now?: () => number;
  log: Logger;
  ready: () => Promise<boolean>;
}

/**
 * A client's `x-request-id`, when it is one: 1 to 128 visible ASCII characters. Anything else is
 * ignored (a fresh id is made), since the id is echoed, sent on every NATS hop and written in every
 * log line of the request.
 */
export const clientRequestId = (header: string | undefined) =>
  header && /^[\x21-\x7e]{1,128}$/.test(header) ? header : undefined;

/**
 * The request's line: at info for writes and failures; a successful read at debug, since reads are
 * the bulk of the traffic, change nothing, and are counted by the request metrics either way (the
 * line was the largest share of the gateway's CPU on `GET /pub/v2/rate`).
 */
const requestLineLevel = (method: string, status: number) =>
  status < 400 && (method === "GET" || method === "HEAD") ? "debug" : "info";

function requestContext(log: Logger) {
  return createMiddleware<GatewayEnv>(async function requestContext(c, next) {
    const requestId = clientRequestId(c.req.header("x-request-id"));
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
      // Made only if a handler logs: most requests never do.
      c.set(
        "log",
        lazyLogger(log, () => ({ requestId: trace.requestId, traceId: traceIdOf(trace) })),
      );
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
      const level = requestLineLevel(method, status);
      if (!log.isLevelEnabled(level)) return;
      // Straight on the service's logger with the request's fields: no child logger per request.
      log[level](
        {
          requestId: trace.requestId,
          traceId: traceIdOf(trace),
          businessId: c.get("trace").businessId,
          method,
          path: c.req.path,
          status,
          ms: Math.round(seconds * 1000),
        },
        "request",
      );
    });
  });
}

export function createApp(deps: AppDeps) {
  // The console's routes keep a router of their own (see SplitRouter).
  const app = new Hono<GatewayEnv>({ router: new SplitRouter(isConsolePath) });
  app.onError(onError);
  app.notFound(notFoundHandler);
  app.use(requestContext(deps.log));
  // Before anything that costs work: a refused request should cost as little as possible.
  app.use(shedOverload({ reads: deps.config.MAX_IN_FLIGHT_READS, writes: deps.config.MAX_IN_FLIGHT_WRITES }));
  app.use(bodyLimits());

  const auth = apiKeyAuth(deps.keys);
  const limit = { perSecond: deps.config.RATE_LIMIT_PER_SECOND, burst: deps.config.RATE_LIMIT_BURST };
  // RATE_LIMIT_PER_SECOND=0 turns the limit off (benchmarks): no guard, no limit bucket.
  const limits =
    limit.perSecond > 0
      ? [
          rateLimit(
            openRateLimitStore(deps.nc, limit, { replicas: deps.config.NATS_STREAM_REPLICAS, log: deps.log }),
          ),
        ]
      : [];
  const register = routeRegistrar(app, {
    guards: {
      apiKey: [auth, ...limits],
      sandbox: [auth, ...limits],
      admin: [adminAuth(deps.config.ADMIN_TOKEN)],
      console: (route) => [consoleAuth({ ...deps.console, totpRequired: !deps.config.RAMP_SANDBOX })(route)],
      none: [],
    },
    idempotency: idempotency(deps.idempotency, answerSecrets(deps.nc)),
    audit: auditWrites(deps.console.audit),
    sandbox: deps.config.RAMP_SANDBOX,
  });

  const health = healthHandler(deps.ready);
  register(Routes.healthz, async (c) => c.json((await health(Routes.healthz.path)).body, 200));
  register(Routes.readyz, async (c) => {
    const [own, services] = await Promise.all([health(Routes.readyz.path), dependencyStates(deps.nc)]);
    const ready = own.status === 200 && Object.values(services).every((s) => s === "ready");
    return c.json({ status: ready ? "ready" : "unavailable", services }, ready ? 200 : 503);
  });
  referenceRoutes(register, deps.config.PUBLIC_BASE_URL ?? "/");

  publicRoutes(register, deps.nc, deps.rates);
  transactionRoutes(register, deps.nc);
  quoteRoutes(register, deps.nc);
  webhookRoutes(register, deps.nc);
  sandboxRoutes(register, deps.nc);
  adminRoutes(register, deps.nc, deps.keys);
  consoleAuditRoutes(register, deps.console.audit);
  consoleKeyRoutes(register, deps.nc, deps.keys, deps.console.lockout);
  consoleBusinessRoutes(register, deps.nc, deps.keys);
  consoleRateRoutes(register, deps.nc);
  consoleMoneyRoutes(register, deps.nc);
  consoleTransactionRoutes(register, deps.nc, deps.now ?? Date.now);
  consoleChainOpsRoutes(register, deps.nc);
  consolePeopleRoutes(register, {
    ...deps.console,
    keys: deps.keys,
    sandbox: deps.config.RAMP_SANDBOX,
    trustProxy: deps.config.TRUST_PROXY,
    now: deps.now ?? Date.now,
  });
  // Last: its page paths must never answer for a console API route.
  consoleAppRoutes(register, deps.config.CONSOLE_DIR);
  return app;
}
