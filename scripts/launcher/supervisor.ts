// Runs the service processes: fail fast while starting, restart with backoff once running,
// and stop them all with one signal each.

import { type ChildProcess, spawn } from "node:child_process";
import { serviceNodeArgs } from "@ramp/devinfra";
import type { ProcessSpec } from "./plan.ts";

/** Restarts of one process before the launcher gives up and brings the stack down. */
export const MAX_RESTARTS = 5;
const FIRST_BACKOFF_MS = 500;
/** A process that stayed up this long has its restart count forgiven. */
const STABLE_MS = 60_000;
/** A service's own stop is bounded below this (see runMain); past it the launcher kills it. */
const STOP_GRACE_MS = 30_000;
const TAIL_LINES = 20;

export interface Supervisor {
  /** Resolves with a description when the stack must come down: an exit during start, or too many restarts. */
  readonly fatal: Promise<string>;
  /**
   * Resolves once every process has logged "service started": its subscriptions are live on this
   * stack's NATS and, for a gateway, it listens on its own port. What the banner waits for, so it never
   * counts a process that is still starting, or another stack's gateway on the same port.
   */
  readonly started: Promise<void>;
  /** From now on an exit is a crash to restart, not a failed start. */
  markRunning(): void;
  /** SIGTERM to every process, once; SIGKILL to any still there after the grace period. */
  stop(): Promise<void>;
}

interface Slot {
  spec: ProcessSpec;
  child: ChildProcess | undefined;
  startedAt: number;
  restarts: number;
  /** Last stderr lines, to print a service's own error when it dies. */
  tail: string[];
  timer: NodeJS.Timeout | undefined;
  /** Logged "service started" at least once. */
  started: boolean;
}

/** The line runtime's bootService logs once a service answers (pino's JSON). */
const STARTED = /"msg":"service started"/;

/** Calls `onLine` with each whole line of a stream's chunks. */
function lines(onLine: (line: string) => void): { push(chunk: Buffer): void; end(): void } {
  let partial = "";
  return {
    push(chunk) {
      const parts = (partial + chunk.toString()).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) onLine(line);
    },
    end() {
      if (partial) onLine(partial);
      partial = "";
    },
  };
}

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

export function startSupervisor(specs: readonly ProcessSpec[], repoRoot: string): Supervisor {
  let running = false;
  let stopping = false;
  let reportFatal: (reason: string) => void = () => undefined;
  const fatal = new Promise<string>((resolve) => {
    reportFatal = resolve;
  });
  let reportStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    reportStarted = resolve;
  });
  const slots: Slot[] = specs.map((spec) => ({
    spec,
    child: undefined,
    startedAt: 0,
    restarts: 0,
    tail: [],
    timer: undefined,
    started: false,
  }));

  const launch = (slot: Slot) => {
    slot.timer = undefined;
    slot.tail = [];
    slot.startedAt = Date.now();
    // `node` on the service's bundle, one process per service, so a signal reaches it once and it
    // drains. Its own process group keeps the terminal's Ctrl-C from reaching it directly: the
    // launcher decides the order (services first, then infrastructure).
    const child = spawn(process.execPath, serviceNodeArgs(slot.spec.service), {
      cwd: repoRoot,
      // The whole environment, settled by prepareServices: each child gets only its own settings.
      env: slot.spec.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    slot.child = child;
    const out = lines((line) => {
      if (slot.started || !STARTED.test(line)) return;
      slot.started = true;
      if (slots.every((s) => s.started)) reportStarted();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      out.push(chunk);
    });
    const err = lines((line) => {
      slot.tail.push(line);
      slot.tail.splice(0, Math.max(0, slot.tail.length - TAIL_LINES));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      err.push(chunk);
    });
    // "close", not "exit": the last stderr lines (the error worth printing) have arrived by then.
    child.on("exit", () => killGroup(child));
    child.on("close", (code, signal) => {
      out.end();
      err.end();
      slot.child = undefined;
      if (!stopping) onExit(slot, code !== null ? `exit code ${code}` : `signal ${signal}`);
    });
  };

  const onExit = (slot: Slot, why: string) => {
    const { label } = slot.spec;
    const output = slot.tail.length ? `; its last output:\n${slot.tail.map((l) => `  ${l}`).join("\n")}` : "";
    if (!running) return reportFatal(`${label} exited while starting (${why})${output}`);
    if (Date.now() - slot.startedAt > STABLE_MS) slot.restarts = 0;
    if (slot.restarts >= MAX_RESTARTS) {
      return reportFatal(`${label} exited (${why}) after ${MAX_RESTARTS} restarts${output}`);
    }
    const delay = FIRST_BACKOFF_MS * 2 ** slot.restarts;
    slot.restarts++;
    say(`!!! ${label} exited (${why}); restart ${slot.restarts}/${MAX_RESTARTS} in ${delay} ms`);
    slot.timer = setTimeout(() => launch(slot), delay);
  };

  for (const slot of slots) launch(slot);

  return {
    fatal,
    started,
    markRunning() {
      running = true;
    },
    async stop() {
      stopping = true;
      await Promise.all(slots.map(stopSlot));
    },
  };
}

/**
 * A service can leave helpers behind in its process group (tsx's esbuild service, when the service was
 * killed before it finished loading); they go with it.
 */
function killGroup(child: ChildProcess) {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group is already empty
  }
}

function stopSlot(slot: Slot): Promise<void> {
  clearTimeout(slot.timer);
  const child = slot.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => {
      say(`${slot.spec.label} did not stop within ${STOP_GRACE_MS} ms; killing it`);
      child.kill("SIGKILL");
    }, STOP_GRACE_MS);
    child.once("close", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
