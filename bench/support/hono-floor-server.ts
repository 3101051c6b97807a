import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { STATIC_RATES } from "./static-rate.ts";

/** Keeps the CPU busy for `us` microseconds: a stand-in for what a real handler computes. */
function busyFor(us: number) {
  const until = performance.now() + us / 1000;
  while (performance.now() < until) {
    // spin
  }
}

/**
 * A bare Hono server on @hono/node-server (the gateway's stack) answering the rate JSON from a constant.
 * With `workUs`, each request first spends that much CPU in JavaScript: the floor with a fixed amount of
 * per-request work added, so the cost of work can be read apart from the cost of serving HTTP.
 */
export async function startHonoFloor(listenOn = 0, workUs = 0): Promise<{ url: string; close(): void }> {
  const app = new Hono();
  app.get(
    "/pub/v2/rate",
    workUs > 0
      ? (c) => {
          busyFor(workUs);
          return c.json(STATIC_RATES);
        }
      : (c) => c.json(STATIC_RATES),
  );
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: listenOn, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/pub/v2/rate?currency=NGN`, close: () => server.close() };
}
