import { expect, inject } from "vitest";
import { type ProcessStackOptions, SERVICE_NAMES } from "../support/process-stack.ts";
import { ADMIN_TOKEN } from "../support/stack.ts";
import { sandboxChainEnv } from "../support/tokens.ts";
import type { FaultRunResult } from "./fault-run.ts";

/** The process stack a fault run drives, from the integration project's infrastructure. */
export function faultStackOptions(extra: Partial<ProcessStackOptions> = {}): ProcessStackOptions {
  return {
    mongoUrl: inject("mongoUrl"),
    natsBin: inject("natsBin"),
    dataDir: inject("testDataDir"),
    adminToken: ADMIN_TOKEN,
    logLevel: process.env.TEST_LOG_LEVEL ?? "warn",
    serviceEnv: {
      "chain-watcher": sandboxChainEnv,
      // A dispatcher killed mid-attempt holds its lane until timeout + 30 s; keep that inside the run.
      "webhook-dispatcher": { WEBHOOK_TIMEOUT_MS: "5000" },
    },
    ...extra,
  };
}

/** Every service was killed at least `minKillsEach` times and every order finished once, told, clean. */
export function expectCleanRun(result: FaultRunResult, orders: number, minKillsEach = 0) {
  console.log(result.report);
  for (const name of SERVICE_NAMES)
    expect(result.chaos.kills[name], name).toBeGreaterThanOrEqual(minKillsEach);
  expect(result.facts).toHaveLength(orders);
  // Each problem in the failure message itself: a CI log keeps the assertion, not the printed report.
  expect(result.problems.map((p) => `${p.kind}: ${p.orderId ?? "-"}: ${p.what}`)).toEqual([]);
  expect({
    stuck: result.counts.stuck,
    duplicated: result.counts.duplicated,
    lost: result.counts.lost,
  }).toEqual({ stuck: 0, duplicated: 0, lost: 0 });
}
