import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { STATIC_RATES } from "./static-rate.ts";

/** A fixed computation of `rounds` steps; its result is kept so the compiler cannot drop the loop. */
let sink = 0;
function compute(rounds: number) {
  let x = sink;
  for (let i = 0; i < rounds; i++) x = (Math.imul(x, 31) + i) | 0;
  sink = x;
}

/**
 * How many steps of `compute` take one microsecond of this process's CPU, read from the CPU clock
 * (`process.cpuUsage`), not the wall clock. Work timed by the wall clock (spin until `us` have passed)
 * costs less CPU the busier the machine is: time spent descheduled counts towards it. On a loaded
 * day that bent the floor's curve (40 µs of such work took less CPU per request than 20 µs), so the
 * gateway could not be placed on it. The median of five 20 ms samples, taken before serving.
 */
function stepsPerMicrosecond(): number {
  let rounds = 1_000;
  while (cpuUsOf(rounds) < 20_000) rounds *= 2;
  const samples = Array.from({ length: 5 }, () => rounds / Math.max(1, cpuUsOf(rounds)));
  samples.sort((a, b) => a - b);
  return samples[2] ?? 1;
}

/** The CPU time (µs) this process spends on `compute(rounds)`. */
function cpuUsOf(rounds: number): number {
  const t = process.cpuUsage();
  compute(rounds);
  const u = process.cpuUsage(t);
  return u.user + u.system;
}

/**
 * A bare Hono server on @hono/node-server (the gateway's stack) answering the rate JSON from a constant.
 * With `workUs`, each request first spends that much CPU in JavaScript (a fixed computation, measured
 * in CPU time once at start): the floor with a fixed amount of per-request work added, so the cost of
 * work can be read apart from the cost of serving HTTP.
 */
export async function startHonoFloor(listenOn = 0, workUs = 0): Promise<{ url: string; close(): void }> {
  const app = new Hono();
  const rounds = workUs > 0 ? Math.round(workUs * stepsPerMicrosecond()) : 0;
  app.get(
    "/pub/v2/rate",
    rounds > 0
      ? (c) => {
          compute(rounds);
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
