// `npm start` as an operator and a process manager meet it: data kept across a stop and a start, every
// signal to the main pid stopping the whole stack, a busy port refused before any banner, and a banner
// that waits for every process of this stack.
import { createServer } from "node:net";
import { eventually } from "@ramp/devinfra/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_OFFRAMP } from "../scripts/launcher/sandbox-example.ts";
import {
  expectNothingLeft,
  killLeftovers,
  type LauncherRun,
  launcherDataDir,
  runLauncher,
} from "./support/launcher-process.ts";

const runs: LauncherRun[] = [];
afterEach(() => {
  for (const r of runs.splice(0)) killLeftovers(r);
});

async function launch(...args: Parameters<typeof runLauncher>): Promise<LauncherRun> {
  const r = await runLauncher(...args);
  runs.push(r);
  return r;
}

/** A line of the banner, once printed (`Sandbox key`, `Webhook secret`, `Data`). */
const bannerLine = (r: LauncherRun, name: string) =>
  eventually(() => new RegExp(`^  ${name}:\\s+(.+)$`, "m").exec(r.stdout())?.[1], 150_000, 250);

const api = (r: LauncherRun, key: string, path: string, body?: unknown) =>
  fetch(`http://127.0.0.1:${r.port}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A stop may take the services' drain and the database's shutdown after the main process exits. */
const STOPPED_WITHIN_MS = 30_000;

describe("npm start across restarts and signals", () => {
  it("keeps key, secret and orders through SIGTERM and SIGINT to npm start's pid; --reset starts clean", async () => {
    const dataDir = launcherDataDir();
    const first = await launch({}, { via: "npm", dataDir });
    const key = await bannerLine(first, "Sandbox key");
    const secret = await bannerLine(first, "Webhook secret");
    expect(await bannerLine(first, "Data")).toMatch(/^new /);
    const created = await api(first, key, "/pub/v2/offramp", SANDBOX_OFFRAMP);
    expect(created.status).toBe(201);
    const order = ((await created.json()) as { id: string }).id;
    // Beyond the banner, neither secret reaches the launcher's output (the services' logs included).
    const out = first.stdout();
    const beyond = out.slice(0, out.indexOf("Ramp is running")) + out.slice(out.indexOf("Stop with Ctrl-C"));
    for (const s of [key, secret.split(" ")[0]!]) expect(beyond + first.stderr()).not.toContain(s);

    first.child.kill("SIGTERM");
    await first.exited;
    await expectNothingLeft(first, STOPPED_WITHIN_MS);

    const second = await launch({}, { via: "npm", dataDir });
    expect(await bannerLine(second, "Sandbox key")).toBe(key);
    expect(await bannerLine(second, "Webhook secret")).toBe(secret);
    expect(await bannerLine(second, "Data")).toMatch(/^kept from the last start/);
    const kept = await api(second, key, `/pub/v2/transaction/${order}`);
    expect(kept.status).toBe(200);
    expect(((await kept.json()) as { id: string }).id).toBe(order);

    second.child.kill("SIGINT");
    await second.exited;
    await expectNothingLeft(second, STOPPED_WITHIN_MS);

    const third = await launch({}, { via: "bootstrap", dataDir, args: ["--reset"] });
    const fresh = await bannerLine(third, "Sandbox key");
    expect(await bannerLine(third, "Data")).toMatch(/^reset/);
    expect(fresh).not.toBe(key);
    expect((await api(third, key, "/pub/v2/rate?currency=NGN")).status).toBe(401);
    expect((await api(third, fresh, `/pub/v2/transaction/${order}`)).status).toBe(404);

    // A closed terminal: its output is gone first, then its signal. The launcher's stop cannot be
    // written anywhere, and still stops every service, the database and NATS.
    third.child.stdout?.destroy();
    third.child.stderr?.destroy();
    third.child.kill("SIGHUP");
    expect(await third.exited).toBe(0);
    await expectNothingLeft(third, STOPPED_WITHIN_MS);
  }, 420_000);

  it("refuses a port in use before starting anything, with no banner", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const r = await launch({}, { port });
      expect(await r.exited).toBe(1);
      expect(r.stderr()).toContain(`port ${port} is in use`);
      expect(r.stdout()).not.toContain("Ramp is running");
      expect([...r.seen.values()].some((c) => c.includes("nats-server") || c.includes("main.ts"))).toBe(
        false,
      );
    } finally {
      holder.close();
    }
  }, 60_000);

  it("prints its banner only once every process of every service has started (RAMP_REPLICAS=2); stops on SIGKILL of the main pid", async () => {
    const r = await launch({ RAMP_REPLICAS: "2" }, { via: "bootstrap" });
    const key = await bannerLine(r, "Sandbox key");
    const beforeBanner = r.stdout().slice(0, r.stdout().indexOf("Ramp is running"));
    const started = beforeBanner.split("\n").filter((l) => l.includes('"msg":"service started"'));
    expect(started).toHaveLength(12);
    // An offramp needs orders and, behind it, chain-watcher: both answer from the first moment.
    expect((await api(r, key, "/pub/v2/offramp", SANDBOX_OFFRAMP)).status).toBe(201);
    for (const port of [r.port, r.port + 1]) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: "ready",
        services: {
          pricing: "ready",
          banking: "ready",
          orders: "ready",
          "chain-watcher": "ready",
          "webhook-dispatcher": "ready",
        },
      });
    }
    // Even SIGKILL, which the main process cannot handle: the launcher it started sees it gone and stops all.
    r.child.kill("SIGKILL");
    await r.exited;
    await expectNothingLeft(r, STOPPED_WITHIN_MS);
  }, 240_000);
});
