import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const REPO_ROOT = resolve(import.meta.dirname, "../../..");

/** A listener that only counts who connects: the service must refuse before dialling anything. */
async function connectionCounter(): Promise<{ server: Server; port: number; count: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const addr = server.address();
  return { server, port: typeof addr === "object" && addr ? addr.port : 0, count: () => connections };
}

describe("banking in production mode", () => {
  it("exits before connecting to NATS or the database, naming every sandbox part and default secret", async () => {
    const nats = await connectionCounter();
    const mongo = await connectionCounter();
    try {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", join(REPO_ROOT, "services", "banking", "src", "main.ts")],
        {
          cwd: REPO_ROOT,
          stdio: ["ignore", "pipe", "pipe"],
          env: {
            PATH: process.env.PATH,
            NATS_URL: `nats://127.0.0.1:${nats.port}`,
            MONGODB_URI: `mongodb://127.0.0.1:${mongo.port}/`,
            RAMP_SANDBOX: "false",
          },
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const [code] = (await once(child, "exit")) as [number | null];
      clearTimeout(timer);

      expect(code).toBe(1);
      expect(stderr).toMatch(/banking: failed to start: RAMP_SANDBOX=false/);
      for (const part of ["BANK_RAIL", "IDENTITY_PROVIDER", "KYC_PEPPER"]) expect(stderr).toContain(part);
      expect(nats.count()).toBe(0);
      expect(mongo.count()).toBe(0);
    } finally {
      nats.server.close();
      mongo.server.close();
    }
  });
});
