import { spawn } from "node:child_process";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { freePort, REPO_ROOT } from "@ramp/devinfra";
import { describe, expect, it } from "vitest";

/** The operator CLI on its own: where it connects, and how it fails when nothing is there. */
function cli(env: Record<string, string | undefined>, ...args: string[]) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const { RAMP_URL: _url, PORT: _port, ...inherited } = process.env;
    const child = spawn(
      join(REPO_ROOT, "node_modules", ".bin", "tsx"),
      [join(REPO_ROOT, "scripts", "admin.ts"), ...args],
      { env: { ...inherited, ADMIN_TOKEN: "cli-token", ...env } },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => resolve({ code, out, err }));
  });
}

describe("admin CLI", () => {
  it("help prints the usage, names its environment and exits 0", async () => {
    const r = await cli({}, "help");
    expect(r.code).toBe(0);
    expect(r.out).toContain("usage:");
    expect(r.out).toContain("RAMP_URL");
    expect(r.out).toContain("PORT");
  });

  it("without RAMP_URL talks to the gateway on $PORT", async () => {
    const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await cli({ PORT: String(port) }, "rate", "delete", "GHS");
      expect(r.code).toBe(0);
      expect(seen).toEqual([
        expect.objectContaining({
          url: "/admin/v1/rates/GHS",
          headers: expect.objectContaining({ authorization: "Bearer cli-token" }),
        }),
      ]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("when nothing answers, says so in one line (no stack trace) and exits 1", async () => {
    const port = await freePort();
    const r = await cli({ RAMP_URL: `http://127.0.0.1:${port}` }, "rate", "delete", "GHS");
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n")).toEqual([
      `no gateway answered at http://127.0.0.1:${port} (ECONNREFUSED); start it with \`npm start\` or set RAMP_URL`,
    ]);
    expect(r.out).toBe("");
  });
});
