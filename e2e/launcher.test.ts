// `npm start`'s launcher as an operator meets it: fail fast, restart a crashed service, stop cleanly.
import { eventually } from "@ramp/devinfra/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  expectNothingLeft,
  killLeftovers,
  type LauncherRun,
  runLauncher,
  SERVICES,
} from "./support/launcher-process.ts";

let run: LauncherRun | undefined;

afterEach(() => {
  // A failed assertion must not leave a stack running: kill whatever the launcher left behind.
  if (run) killLeftovers(run);
  run = undefined;
});

describe("npm start", () => {
  it("fails fast naming the gateway's ADMIN_TOKEN error when it is too short, starting no service", async () => {
    const started = Date.now();
    run = await runLauncher({ ADMIN_TOKEN: "short" });
    const code = await run.exited;
    // Not a performance figure: the launcher used to wait out its 120 s readiness limit here. Alone it
    // takes about 13 s; the bound leaves room for a CI machine running other test files beside it.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(code).toBe(1);
    expect(run.stderr()).toMatch(/no service was started/);
    expect(run.stderr()).toMatch(/gateway ADMIN_TOKEN: ADMIN_TOKEN must be at least 16 characters/);
    await expectNothingLeft(run, 5_000, false);
  });

  it("refuses production mode with one error naming every sandbox part of every service, starting none", async () => {
    run = await runLauncher({ RAMP_SANDBOX: "false", ADMIN_TOKEN: "change-me-please-0123456789" });
    expect(await run.exited).toBe(1);
    const parts = [
      "gateway ADMIN_TOKEN: is a published development value",
      "gateway CONSOLE_SECRET_KEY",
      "banking BANK_RAIL",
      "banking KYC_PEPPER",
      "chain-watcher HD_MNEMONIC",
      "chain-watcher RPC_URL_ETHEREUM",
      "chain-watcher SOL_USD_PRICE",
      "webhook-dispatcher WEBHOOK_SECRET_KEY",
    ];
    const failed = run.stderr().slice(run.stderr().indexOf("FAILED:"));
    for (const part of parts) expect(failed).toContain(part);
    await expectNothingLeft(run, 5_000, false);
  });

  it("restarts a killed service, then drains all six on Ctrl-C and leaves nothing running", async () => {
    const r = await runLauncher({});
    run = r;
    const banner = await eventually(() => /Sandbox key:\s+(\S+)/.exec(r.stdout())?.[1], 150_000, 250);
    const rate = () =>
      fetch(`http://127.0.0.1:${r.port}/pub/v2/rate?currency=NGN`, { headers: { "x-api-key": banner } });
    expect((await rate()).status).toBe(200);
    // Every service signs and checks stream messages through libsodium (a binary in its npm package).
    const started = r
      .stdout()
      .split("\n")
      .filter((l) => l.includes('"msg":"service started"'));
    expect(started.length).toBeGreaterThanOrEqual(6);
    for (const line of started) expect(line).toContain('"signatures":"libsodium"');
    // The sandbox's console owner, printed in the banner, signs in.
    const [, email = "", password = ""] = /Console owner:\s+(\S+) \/ (\S+)/.exec(r.stdout()) ?? [];
    const signIn = await fetch(`http://127.0.0.1:${r.port}/console/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(signIn.status).toBe(200);
    // The API reference's script, which the gateway's bundle serves from the installed npm package.
    const docs = await (await fetch(`http://127.0.0.1:${r.port}/docs`)).text();
    const script = /src="(\/docs\/[^"]+\.js)"/.exec(docs)?.[1];
    expect(script).toBeDefined();
    const served = await fetch(`http://127.0.0.1:${r.port}${script}`);
    expect(served.status).toBe(200);
    expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(100_000);

    const pricing = r.livePid("services/pricing/dist/main.mjs")!;
    process.kill(pricing, "SIGKILL");
    await eventually(() =>
      /pricing exited \(signal SIGKILL\); restart 1\//.test(r.stderr()) ? true : undefined,
    );
    // The restarted pricing says it started (the gateway keeps pricing's answers, so a rate read alone
    // would not show pricing is back), and rates still answer.
    const pricingStarts = () =>
      r
        .stdout()
        .split("\n")
        .filter((l) => l.includes('"service":"pricing"') && l.includes('"msg":"service started"')).length;
    await eventually(() => (pricingStarts() >= 2 ? true : undefined), 60_000, 250);
    expect((await rate()).status).toBe(200);
    expect(r.livePid("services/pricing/dist/main.mjs")).not.toBe(pricing);

    r.child.kill("SIGINT");
    expect(await r.exited).toBe(0);
    const stopped = r
      .stdout()
      .split("\n")
      .filter((l) => l.includes('"msg":"service stopped"'))
      .map((l) => (JSON.parse(l) as { service: string }).service);
    expect(new Set(stopped)).toEqual(new Set(SERVICES));
    await expectNothingLeft(r);
  }, 240_000);
});
