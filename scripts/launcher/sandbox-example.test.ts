import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@ramp/devinfra";
import { describe, expect, it } from "vitest";
import { banner } from "./banner.ts";
import { BANK_CODE_FORMAT, sandboxOfframpCommands } from "./sandbox-example.ts";

const guide = readFileSync(join(REPO_ROOT, "docs", "integrator-guide.md"), "utf8");

describe("the sandbox example", () => {
  it("is the integrator guide's offramp, command for command, with its bank-code rule", () => {
    for (const command of sandboxOfframpCommands("$RAMP", "$KEY")) expect(guide).toContain(command);
    expect(guide).toContain(BANK_CODE_FORMAT);
  });

  it("is printed by npm start with the real URL and key, and not in production mode", () => {
    const opts = {
      seconds: 1,
      gateways: ["http://127.0.0.1:9123"],
      replicas: 1,
      adminToken: "t",
      data: { state: "new", dir: "/tmp/ramp" },
    } as const;
    const console = [{ role: "admin" as const, email: "admin@sandbox.local", password: "pw-printed" }];
    const text = banner({
      ...opts,
      seed: { apiKey: "rk_live_example", webhookSecret: "whsec_example" },
      console,
    });
    expect(text).toContain("Console admin:  admin@sandbox.local / pw-printed");
    for (const command of sandboxOfframpCommands("http://127.0.0.1:9123", "rk_live_example")) {
      const indented = command.replace(/^/gm, "    ");
      expect(text).toContain(indented);
    }
    expect(text).not.toContain("$KEY");
    expect(banner({ ...opts, seed: undefined })).not.toContain("/pub/v2/offramp");
  });
});
