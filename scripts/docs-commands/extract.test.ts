import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@ramp/devinfra";
import { describe, expect, it } from "vitest";
import { extractCommands, splitCommands } from "./extract.ts";
import { fillIn, signedSample } from "./plan.ts";
import { plannedCommands } from "./run.ts";

describe("documented commands", () => {
  it("every command in README.md, docs/ and bench/README.md has a decision: run, start or skip with a reason", () => {
    const planned = plannedCommands(REPO_ROOT);
    expect(planned.length).toBeGreaterThan(30);
    const undecided = planned
      .filter((p) => p.plan === undefined)
      .map((p) => `${p.command.file}:${p.command.line} ${p.command.text}`);
    expect(undecided).toEqual([]);
    // The integrator guide's whole offramp is among what runs.
    const runs = planned.filter((p) => p.plan?.action === "run").map((p) => p.command.text);
    expect(runs.some((t) => t.includes("/pub/v2/offramp"))).toBe(true);
    expect(runs.some((t) => t.includes("/token-deposit"))).toBe(true);
  });

  it("splits a block into commands: continuations, open quotes and $( ) kept together, comments dropped", () => {
    const block = [
      "# a comment",
      'X=$(curl -s "a" \\',
      '  -d \'{"a":1,',
      '       "b":2}\' | jq -r .id)',
      "npm start   # starts it",
      "            # more comment",
      "",
      "echo done",
    ];
    expect(splitCommands(block).map((c) => c.text)).toEqual([
      'X=$(curl -s "a" \\\n  -d \'{"a":1,\n       "b":2}\' | jq -r .id)',
      "npm start   # starts it",
      "echo done",
    ]);
  });

  it("reads inline commands from prose, even wrapped across a line, and not bare names", () => {
    const md =
      "Run `npm run nats:keys >> .env` then `docker build -f x\n-t y .`; see `scripts/` and `node`.\n";
    expect(extractCommands("x.md", md).map((c) => c.text)).toEqual([
      "npm run nats:keys >> .env",
      "docker build -f x -t y .",
    ]);
  });

  it("fills in the printed key, token, URL and business id, and keeps webhook targets local", () => {
    const facts = {
      url: "http://127.0.0.1:9",
      apiKey: "rk_1",
      adminToken: "tok",
      webhookTarget: "http://127.0.0.1:7",
      scratch: "/tmp/x",
    };
    expect(fillIn('curl -H "x-api-key: <printed key>" "http://127.0.0.1:8080/r"', facts)).toBe(
      'curl -H "x-api-key: rk_1" "http://127.0.0.1:9/r"',
    );
    expect(fillIn("ADMIN_TOKEN=… npm run admin -- key create <businessId>", facts)).toBe(
      'ADMIN_TOKEN=tok npm run admin -- key create "$BUSINESS_ID"',
    );
    expect(fillIn('{"u":"http://127.0.0.1:3000/hooks/ramp"}', facts)).toBe(
      '{"u":"http://127.0.0.1:7/hooks/ramp"}',
    );
  });

  it("finds the guide's signed sample delivery", () => {
    const sample = signedSample(readFileSync(join(REPO_ROOT, "docs", "integrator-guide.md"), "utf8"));
    expect(sample.body).toBe('{"id":"abc","status":"COMPLETED"}');
    expect(sample.signature).toMatch(/^[0-9a-f]{64}$/);
  });
});
