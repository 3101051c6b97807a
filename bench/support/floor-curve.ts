/**
 * Bare Hono with a fixed amount of CPU work added to every request, each a process of its own driven
 * like the gateway: where the gateway's own cost per request sits on that curve says how much of it is
 * work of ours and how much is serving HTTP, which grows as the server's own work grows (a slower
 * server's socket writes find the generator asleep more often, and each wakes it).
 */
import { startListening } from "./child.ts";
import { type HttpLoadResult, httpLoad } from "./http-load.ts";
import { cpuMeter, msPerOperation, syscalls, syscallsPer } from "./process-cpu.ts";

/** The work added per request along the curve, microseconds (0 is the floor itself). */
export const FLOOR_WORK_STEPS_US = [10, 20, 40] as const;

export interface FloorPoint {
  workUs: number;
  load: HttpLoadResult;
  /** CPU of the server process per request, and the kernel's part of it, in milliseconds. */
  cpuMsPerRequest?: number;
  kernelMsPerRequest?: number;
  /** The server's read and write system calls per request, as text. */
  syscallsText: string;
}

/** Starts bare Hono with `workUs` of work per request on `port`, drives it, and stops it. */
export async function measureHonoFloor(opts: {
  port: number;
  workUs: number;
  concurrency: number;
  durationS: number;
}): Promise<FloorPoint> {
  const server = await startListening("bench/support/hono-floor-main.ts", {
    PORT: String(opts.port),
    FLOOR_WORK_US: String(opts.workUs),
  });
  try {
    const pid = server.child.pid;
    // JIT and connections warm before anything is counted, as for the gateway.
    const target = { url: server.url, headers: { "x-api-key": "rk_floor" }, concurrency: opts.concurrency };
    await httpLoad({ ...target, durationS: 1 });
    const cpu = cpuMeter({ hono: pid }, "bench");
    const calls = syscalls(pid);
    const load = await httpLoad({ ...target, durationS: opts.durationS });
    const share = cpu.stop().processes.find((p) => p.name === "hono");
    const requests = load.requestsPerSecond * opts.durationS;
    return {
      workUs: opts.workUs,
      load,
      cpuMsPerRequest: msPerOperation(share?.percent, load.requestsPerSecond),
      kernelMsPerRequest: msPerOperation(share?.kernelPercent, load.requestsPerSecond),
      syscallsText: syscallsPer(calls, syscalls(pid), requests),
    };
  } finally {
    // Gone before the next point listens on the same port.
    const { child } = server;
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      });
    }
  }
}

/**
 * The work per request (µs) at which bare Hono's CPU per request equals `cpuMs`: piecewise linear
 * between the measured points, and past the last along its last segment. Undefined below the floor or
 * with fewer than two points.
 */
export function equivalentWorkUs(
  points: ReadonlyArray<{ workUs: number; cpuMs: number }>,
  cpuMs: number,
): number | undefined {
  const sorted = [...points].sort((a, b) => a.workUs - b.workUs);
  if (sorted.length < 2 || cpuMs < (sorted[0]?.cpuMs ?? Number.POSITIVE_INFINITY)) return undefined;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (!a || !b) continue;
    const last = i === sorted.length - 1;
    if ((cpuMs <= b.cpuMs || last) && b.cpuMs > a.cpuMs) {
      return a.workUs + ((cpuMs - a.cpuMs) / (b.cpuMs - a.cpuMs)) * (b.workUs - a.workUs);
    }
  }
  return undefined;
}
