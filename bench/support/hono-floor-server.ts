import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { STATIC_RATES } from "./static-rate.ts";

/** A bare Hono server on @hono/node-server (the gateway's stack) answering the rate JSON from a constant. */
export async function startHonoFloor(listenOn = 0): Promise<{ url: string; close(): void }> {
  const app = new Hono();
  app.get("/pub/v2/rate", (c) => c.json(STATIC_RATES));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: listenOn, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/pub/v2/rate?currency=NGN`, close: () => server.close() };
}
