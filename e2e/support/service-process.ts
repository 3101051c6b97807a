import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, closeSync, openSync, readFileSync } from "node:fs";

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** Built fresh for every start, so a restart picks up whatever the stack's env is now. */
  env: () => Record<string, string>;
  logFile: string;
  /** Resolves true once the process answers; polled after each spawn. */
  ready: () => Promise<boolean>;
  readyTimeoutMs?: number;
}

/**
 * One child process that can be killed for real (`SIGKILL`, nothing gets to clean up) and started
 * again. Every start appends to the same log file behind a marker line, so one file tells the whole
 * story of a service across its restarts. An exit the harness did not ask for is counted and, like
 * an orchestrator would, restarted.
 */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number | undefined;
  /** Spawned and not yet exited (it may still be booting). */
  readonly alive: boolean;
  readonly starts: number;
  readonly kills: number;
  /** Exits nobody asked for (crashes), each followed by an automatic restart. */
  readonly crashes: number;
  /** Spawns the process unless it runs, then waits until it answers ready. */
  start(): Promise<void>;
  /** `kill -9` and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain), SIGKILL if it lingers. */
  stop(): Promise<void>;
  logTail(lines: number): string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function managedProcess(spec: ProcessSpec): ManagedProcess {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let expectExit = false;
  let closing = false;
  let starts = 0;
  let kills = 0;
  let crashes = 0;

  const mark = (line: string) => appendFileSync(spec.logFile, `\n=== ${new Date().toISOString()} ${line}\n`);

  function spawnOnce(): ChildProcess {
    starts++;
    expectExit = false;
    const fd = openSync(spec.logFile, "a");
    const c = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env(),
      stdio: ["ignore", fd, fd],
    });
    closeSync(fd);
    mark(`${spec.name} start #${starts} pid ${c.pid}`);
    exited = new Promise((resolve) => {
      c.once("exit", (code, signal) => {
        mark(`${spec.name} pid ${c.pid} exited code=${code} signal=${signal}`);
        if (child === c) child = undefined;
        resolve();
        if (!expectExit && !closing) {
          crashes++;
          // An orchestrator restarts a crashed container; so does the harness, after a short back-off.
          void sleep(500).then(() => (closing || child ? undefined : handle.start().catch(() => undefined)));
        }
      });
    });
    return c;
  }

  async function waitReady(c: ChildProcess): Promise<void> {
    const deadline = Date.now() + (spec.readyTimeoutMs ?? 90_000);
    while (Date.now() < deadline) {
      if (c.exitCode !== null || c.signalCode !== null) {
        throw new Error(`${spec.name} exited while starting:\n${handle.logTail(20).join("\n")}`);
      }
      if (await spec.ready().catch(() => false)) return;
      await sleep(200);
    }
    throw new Error(`${spec.name} not ready within ${spec.readyTimeoutMs ?? 90_000} ms`);
  }

  const handle: ManagedProcess = {
    name: spec.name,
    get pid() {
      return child?.pid;
    },
    get alive() {
      return child !== undefined;
    },
    get starts() {
      return starts;
    },
    get kills() {
      return kills;
    },
    get crashes() {
      return crashes;
    },
    async start() {
      // Already spawned (for instance restarted after a crash): ready when that boot is.
      if (child) return waitReady(child);
      closing = false;
      child = spawnOnce();
      await waitReady(child);
    },
    async kill() {
      const c = child;
      if (!c) return;
      kills++;
      expectExit = true;
      c.kill("SIGKILL");
      await exited;
    },
    async stop() {
      closing = true;
      const c = child;
      if (!c) return;
      expectExit = true;
      c.kill("SIGTERM");
      const timer = setTimeout(() => c.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
    logTail(lines: number) {
      try {
        return readFileSync(spec.logFile, "utf8").trimEnd().split("\n").slice(-lines);
      } catch {
        return [];
      }
    },
  };
  return handle;
}
