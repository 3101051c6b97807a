import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { NatsConnection } from "@nats-io/transport-node";
import { Commands } from "@ramp/contracts";
import { freePort, serviceNodeArgs } from "@ramp/devinfra";
import { ensureStreams, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type ManagedProcess, managedProcess } from "./support/service-process.ts";
import { eventually, type Stack, startStack } from "./support/stack.ts";

/**
 * PAYOUT_ATTEMPTS bounds a payout's failed asks across restarts: banking runs as a real process and
 * is `kill -9`ed while it waits to ask a rail that stays down (`776…` accounts answer 503) again;
 * started again and handed the command once more (as its redelivery would), it goes on counting
 * where the dead process stopped and fails the payout after the bound, not a fresh count later.
 */
const ATTEMPTS = 4;
let stack: Stack;
let banking: ManagedProcess;
let nc: NatsConnection;
let logFile: string;

beforeAll(async () => {
  stack = await startStack({ services: [] });
  const healthPort = await freePort();
  logFile = join(inject("testDataDir"), `banking-restart-${stack.id}.log`);
  const inherited = Object.fromEntries(
    ["PATH", "HOME", "TMPDIR", "LANG"].flatMap((k) =>
      process.env[k] ? [[k, process.env[k] as string]] : [],
    ),
  );
  banking = managedProcess({
    name: "banking",
    command: process.execPath,
    args: serviceNodeArgs("banking"),
    cwd: resolve(import.meta.dirname, ".."),
    env: () => ({
      ...inherited,
      ...stack.natsEnv("banking"),
      MONGODB_URI: inject("mongoUrl"),
      MONGODB_DATABASE: `t${stack.id}_banking`,
      HEALTH_PORT: String(healthPort),
      LOG_LEVEL: "warn",
      RAMP_SANDBOX: "true",
      PAYOUT_ATTEMPTS: String(ATTEMPTS),
      // Waits of 2, 4 and 8 s between asks: time to kill it while it waits.
      PAYOUT_RETRY_BASE_MS: "2000",
      PAYOUT_TIMEOUT_MS: "2000",
    }),
    logFile,
    ready: async () =>
      (await fetch(`http://127.0.0.1:${healthPort}/readyz`, { signal: AbortSignal.timeout(2_000) }))
        .status === 200,
  });
  await banking.start();
  nc = await stack.connectAs("orders");
}, 120_000);
afterAll(async () => {
  await nc?.close();
  await banking?.stop();
  await stack?.close();
});

describe("payout retries across a banking crash", () => {
  it("a payout whose rail stays down is failed after PAYOUT_ATTEMPTS asks in all, however often banking restarts", async () => {
    const orderId = `restart-${stack.id}`;
    const command = {
      orderId,
      bankCode: "000013",
      accountNumber: "7760000001",
      accountName: "ADA OKAFOR",
      currency: "NGN" as const,
      fiatAmount: "1000.00",
      narration: "restart test",
    };
    // The handle orders publishes with: it signs as orders, which banking checks.
    const { js } = await ensureStreams(nc);
    await publish(js, Commands.bankingPayout, command, `payout-cmd:${orderId}`);
    const payouts = (await stack.db("banking")).collection<{
      _id: string;
      status: string;
      reason: string | null;
      railFailures?: number;
    }>("payouts");
    // Two asks failed and were counted; the process now waits to ask a third time, and dies.
    await eventually(async () => {
      const p = await payouts.findOne({ _id: orderId });
      return (p?.railFailures ?? 0) >= 2 ? true : undefined;
    }, 30_000);
    await banking.kill();
    const before = (await payouts.findOne({ _id: orderId }))?.railFailures ?? 0;
    expect(before).toBeLessThan(ATTEMPTS);
    await banking.start();
    // The command again, as its redelivery after the ack wait would bring it (sooner, under another id).
    await publish(js, Commands.bankingPayout, command, `payout-cmd:${orderId}:again`);

    const failed = await eventually(async () => {
      const p = await payouts.findOne({ _id: orderId });
      return p?.status === "FAILED" ? p : undefined;
    }, 60_000);
    expect(failed.railFailures).toBe(ATTEMPTS);
    expect(failed.reason).toMatch(new RegExp(`^Bank rail unavailable after ${ATTEMPTS} attempts: .*503`));
    // Every failed ask, before the kill and after the restart, left one line: the bound, not a fresh count.
    const asks = readFileSync(logFile, "utf8")
      .split("\n")
      .filter((l) => l.includes(orderId) && l.includes("bank rail failed; asking again"));
    expect(asks).toHaveLength(ATTEMPTS);
  }, 150_000);
});
