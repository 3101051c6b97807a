import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRampClient } from "./client.ts";

const guide = readFileSync(join(import.meta.dirname, "../../../docs/integrator-guide.md"), "utf8");
const table = guide.slice(guide.indexOf("### Methods"), guide.indexOf("## 4. Webhooks"));

describe("the integrator guide's SDK section", () => {
  it("lists every method of the client with its signature", () => {
    const client = createRampClient({ apiKey: "k", baseUrl: "http://127.0.0.1:1" });
    const methods = Object.entries(client).flatMap(([group, fns]) =>
      Object.keys(fns).map((name) => `${group}.${name}`),
    );
    expect(methods.length).toBeGreaterThan(20);
    for (const method of methods) expect(table).toMatch(new RegExp(`\\|\\s*\`${method}\`\\s*\\|\\s*\`\\(`));
  });
});
