import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { markInUse, removeStaleRuns } from "./stale-runs.ts";

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

describe("removeStaleRuns", () => {
  it("removes the run folders (and their logs) no live process uses, and keeps the rest", () => {
    const parent = mkdtempSync(join(tmpdir(), "stale-runs-"));
    const dead = deadPid();
    markInUse(join(parent, "nats-1001"), [dead]);
    writeFileSync(join(parent, "nats-1001.log"), "old log");
    markInUse(join(parent, "nats-1002"), [dead, process.pid]);
    // A test run whose own owner is gone but whose database server still runs inside it.
    markInUse(join(parent, "test-a"), [dead]);
    markInUse(join(parent, "test-a", "ferretdb-7"), [dead, process.pid]);
    markInUse(join(parent, "test-b"), [dead]);
    markInUse(join(parent, "test-b", "nats-8"), [dead]);
    // From before folders were marked: kept while recent, removed once a day old.
    mkdirSync(join(parent, "test-new"));
    mkdirSync(join(parent, "test-old"));
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(join(parent, "test-old"), twoDaysAgo, twoDaysAgo);
    markInUse(join(parent, "other-1"), [dead]);

    const removed = removeStaleRuns(parent, /^(nats|test)-/);

    expect(removed.sort()).toEqual(["nats-1001", "test-b", "test-old"]);
    expect(existsSync(join(parent, "nats-1001.log"))).toBe(false);
    for (const kept of ["nats-1002", "test-a", "test-new", "other-1"])
      expect(existsSync(join(parent, kept))).toBe(true);
  });

  it("is a no-op for a folder that does not exist yet", () => {
    expect(removeStaleRuns(join(tmpdir(), "no-such-folder-for-stale-runs"), /./)).toEqual([]);
  });
});
