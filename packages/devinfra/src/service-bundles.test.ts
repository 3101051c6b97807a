import { spawnSync } from "node:child_process";
import { statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./infra.ts";
import { ensureServiceBundles, serviceBundle, serviceNodeArgs } from "./service-bundles.ts";

const builtAt = () => statSync(serviceBundle("pricing")).mtimeMs;

/** A service started from its bundle with no configuration at all: it exits at once, saying why. */
async function startUnconfigured(name: "pricing" | "chain-watcher") {
  await ensureServiceBundles([name]);
  return spawnSync(process.execPath, serviceNodeArgs(name), {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "" },
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("service bundles", () => {
  it("builds a service again after one of its sources changed, and only then", async () => {
    await ensureServiceBundles(["pricing"]);
    const first = builtAt();
    await ensureServiceBundles(["pricing"]);
    expect(builtAt()).toBe(first);

    // An edit, as far as the build can tell: the file's modification time moves on.
    const source = join(REPO_ROOT, "services", "pricing", "src", "main.ts");
    const now = new Date();
    utimesSync(source, now, now);
    await ensureServiceBundles(["pricing"]);
    expect(builtAt()).toBeGreaterThan(first);
  }, 60_000);

  it("runs the service from its bundle: a start without configuration names what is missing", async () => {
    const r = await startUnconfigured("pricing");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^pricing: failed to start: invalid configuration:\n\s+NATS_URL:/m);
  }, 60_000);

  it("starts chain-watcher without a word about native add-ons it does not use", async () => {
    const r = await startUnconfigured("chain-watcher");
    // Everything it prints is about its configuration: the first line an operator reads is the one to act on.
    expect(r.stderr.split("\n")[0]).toBe("chain-watcher: failed to start: invalid configuration:");
    expect(r.stdout).toBe("");
  }, 60_000);
});
