// The quick subset of `npm run check:docs` in CI: the integrator guide's curl flows, the admin CLI and
// the quick npm scripts, each run as documented in one shell against a stack of this test's own, and
// the sandbox example `npm start` prints, followed until its order completes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, TOOLS_DIR } from "@ramp/devinfra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StackFacts } from "../scripts/docs-commands/plan.ts";
import { formatOutcome, runDocumented } from "../scripts/docs-commands/run.ts";
import { openShell, type Shell } from "../scripts/docs-commands/shell.ts";
import { sandboxOfframpCommands } from "../scripts/launcher/sandbox-example.ts";
import { ADMIN_TOKEN, eventually, type Stack, startStack } from "./support/stack.ts";
import { sandboxChainEnv } from "./support/tokens.ts";
import { type Receiver, receiver } from "./support/webhook-receiver.ts";

let stack: Stack;
let hooks: Receiver;
let shell: Shell;
let facts: StackFacts;

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1580);
  const business = await stack.createBusiness("Docs Sandbox");
  hooks = await receiver();
  facts = {
    url: stack.url,
    apiKey: business.apiKey,
    adminToken: ADMIN_TOKEN,
    webhookTarget: hooks.url,
    scratch: mkdtempSync(join(tmpdir(), "ramp-docs-")),
  };
  const { RAMP_URL: _unset, ...env } = process.env;
  shell = openShell({
    cwd: REPO_ROOT,
    scratch: facts.scratch,
    env: {
      ...(env as Record<string, string>),
      PORT: new URL(stack.url).port,
      RAMP_TOOLS_BIN: join(TOOLS_DIR, "bin"),
    },
  });
});
afterAll(async () => {
  shell?.close();
  await hooks?.close();
  await stack?.close();
});

describe("documented commands (quick subset)", () => {
  it("each runs as written against a sandbox stack", async () => {
    const outcomes = await runDocumented({
      root: REPO_ROOT,
      shell,
      facts,
      quickOnly: true,
      started: undefined,
    });
    const failed = outcomes.filter((o) => o.verdict === "fail").map(formatOutcome);
    expect(failed).toEqual([]);
    const passed = outcomes.filter((o) => o.verdict === "pass").map((o) => o.command.text);
    for (const part of [
      "/pub/v2/offramp",
      "/fiat-deposit",
      "/pub/v2/payment",
      "/pub/v2/quote",
      "/pub/v2/transactions/export",
      "/pub/v2/webhook",
      "admin -- key create",
      "nats:config",
    ])
      expect(passed.some((t) => t.includes(part))).toBe(true);
  });

  it("an error answer fails the command, so a broken documented call cannot pass", async () => {
    const r = await shell.run(
      `curl -s -H "x-api-key: rk_not_issued" "${facts.url}/pub/v2/rate?currency=NGN"`,
    );
    expect(r.status).not.toBe(0);
    expect(r.output).toContain("Invalid API key");
  });

  it("the banner's sandbox offramp, pasted as printed, ends COMPLETED", async () => {
    const [create, deposit, lookup] = sandboxOfframpCommands(facts.url, facts.apiKey);
    expect((await shell.run(create)).status).toBe(0);
    expect((await shell.run(deposit)).output).toContain('"accepted":true');
    await eventually(
      async () => {
        const r = await shell.run(lookup);
        expect(r.status).toBe(0);
        expect(r.output).toContain('"status":"COMPLETED"');
        return true;
      },
      30_000,
      500,
    );
    // The ORDER variable really held the new order: the lookup names it.
    expect((await shell.run('echo "$ORDER"')).output.trim()).toMatch(/^[0-9a-f]{24}$/);
  });
});
