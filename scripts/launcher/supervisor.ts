// Runs the service processes: fail fast while starting, restart with backoff once running,
// and stop them all with one signal each.

import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
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
}

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);

export function startSupervisor(specs: readonly ProcessSpec[], repoRoot: string): Supervisor {
  let running = false;
  let stopping = false;
  let reportFatal: (reason: string) => void = () => undefined;
  const fatal = new Promise<string>((resolve) => {
    reportFatal = resolve;
  });
  const slots: Slot[] = specs.map((spec) => ({
    spec,
    child: undefined,
    startedAt: 0,
    restarts: 0,
    tail: [],
    timer: undefined,
  }));

  const launch = (slot: Slot) => {
    slot.timer = undefined;
    slot.tail = [];
    slot.startedAt = Date.now();
    // `node --import tsx` rather than the tsx CLI: one process per service, so a signal reaches it once
    // and it drains. Its own process group keeps the terminal's Ctrl-C from reaching it directly:
    // the launcher decides the order (services first, then infrastructure).
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(repoRoot, "services", slot.spec.service, "src", "main.ts")],
      {
        cwd: repoRoot,
        // The whole environment, settled by prepareServices: each child gets only its own settings.
        env: slot.spec.env,
        stdio: ["ignore", "inherit", "pipe"],
        detached: true,
      },
    );
    slot.child = child;
    let partial = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      slot.tail.push(...lines);
      slot.tail.splice(0, Math.max(0, slot.tail.length - TAIL_LINES));
    });
    // "close", not "exit": the last stderr lines (the error worth printing) have arrived by then.
    child.on("exit", () => killGroup(child));
    child.on("close", (code, signal) => {
      if (partial) slot.tail.push(partial);
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
