import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { ChangeFeeds } from "@ramp/contracts";
import { bootService, createRateCache, openChangeFeed } from "@ramp/runtime";
import { createApp } from "./app.ts";
import { createKeyStore } from "./auth/api-keys.ts";
import { consoleSecretKeyOf, type GatewayConfig } from "./config.ts";
import { createIdempotencyStore, IDEMPOTENCY_LEASE_MS } from "./idempotency/idempotency-store.ts";
import { openConsoleStores } from "./people/stores.ts";

export async function startGateway(config: GatewayConfig) {
  let port = config.PORT;
  const handle = await bootService("gateway", config, async ({ db, nc, log, claims }) => {
    const changes = await openChangeFeed(nc, ChangeFeeds.gateway, log, config.NATS_STREAM_REPLICAS);
    const keys = createKeyStore(db, changes);
    await keys.init();
    const idempotency = createIdempotencyStore(db, claims, {
      ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
      leaseMs: IDEMPOTENCY_LEASE_MS,
      log,
    });
    await idempotency.init();
    const rates = createRateCache(nc, log);
    const consoleStores = await openConsoleStores(db, {
      idleSeconds: config.CONSOLE_SESSION_IDLE_SECONDS,
      now: Date.now,
      secretKey: consoleSecretKeyOf(config),
    });
    const app = createApp({
      config,
      nc,
      keys,
      rates,
      idempotency,
      console: consoleStores,
      log,
      ready: () => handle.ready(),
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: config.PORT, hostname: "0.0.0.0" }, () => resolve(s));
    });
    port = (server.address() as AddressInfo).port;
    log.info({ port }, "gateway listening");
    return [
      changes,
      rates,
      idempotency,
      { stop: () => new Promise<void>((resolve) => server.close(() => resolve())) },
    ];
  });
  return Object.assign(handle, {
    get port() {
      return port;
    },
  });
}
