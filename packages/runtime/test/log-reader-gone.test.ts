import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { REPO_ROOT } from "@ramp/devinfra";
import { describe, expect, it } from "vitest";

/**
 * A service's output goes to whatever reads it (the launcher, a container runtime). When that reader
 * has gone (killed, or a closed terminal), the lines a stop writes can never arrive; the service must
 * still drain and exit 0, neither dying at its first line nor hanging at exit until someone sends
 * SIGKILL.
 */
describe("a service whose log reader has gone", () => {
  it("still exits on SIGTERM", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(REPO_ROOT, "packages/runtime/test/support/logging-main.ts")],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    try {
      let out = "";
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("service started")) resolve();
        });
        child.once("exit", () => reject(new Error(`exited before it started: ${out}`)));
      });
      // The reader goes away: every later write to the child's output fails with EPIPE.
      for (const stream of [child.stdout, child.stderr]) {
        stream.destroy();
        await once(stream, "close");
      }
      child.kill("SIGTERM");
      const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      clearTimeout(killer);
    }
  }, 30_000);
});
