import { spawn } from "node:child_process";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { freePort, REPO_ROOT } from "@ramp/devinfra";
import { describe, expect, it } from "vitest";

/** The operator CLI on its own: where it connects, and how it fails when nothing is there. */
function cli(env: Record<string, string | undefined>, ...args: string[]) {
  return cliWithInput(env, undefined, ...args);
}

function cliWithInput(env: Record<string, string | undefined>, input: string | undefined, ...args: string[]) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const { RAMP_URL: _url, PORT: _port, ...inherited } = process.env;
    const child = spawn(
      join(REPO_ROOT, "node_modules", ".bin", "tsx"),
      [join(REPO_ROOT, "scripts", "admin.ts"), ...args],
      { env: { ...inherited, ADMIN_TOKEN: "cli-token", ...env } },
    );
    child.stdin.end(input ?? "");
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

  it("operator create posts the email, role and password (from OPERATOR_PASSWORD or stdin), never on argv", async () => {
    const bodies: unknown[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        bodies.push({ url: req.url, body: JSON.parse(body) });
        res
          .writeHead(201, { "content-type": "application/json" })
          .end('{"id":"x","email":"a@b.co","role":"admin"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const fromEnv = await cli(
        { RAMP_URL: url, OPERATOR_PASSWORD: "from the environment" },
        "operator",
        "create",
        "a@b.co",
        "admin",
      );
      expect(fromEnv.code).toBe(0);
      const fromStdin = await cliWithInput(
        { RAMP_URL: url },
        "typed on stdin!!\n",
        "operator",
        "create",
        "c@d.co",
        "viewer",
      );
      expect(fromStdin.code).toBe(0);
      expect(bodies).toEqual([
        {
          url: "/admin/v1/operators",
          body: { email: "a@b.co", password: "from the environment", role: "admin" },
        },
        {
          url: "/admin/v1/operators",
          body: { email: "c@d.co", password: "typed on stdin!!", role: "viewer" },
        },
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
