// Run folders under .data (a test run's `test-*`, a fault run's `fault-*`, a server's `nats-<port>`
// beside its log) are kept after the run, so their logs can be read; the next run removes the ones
// nobody uses any more. Each records the processes that use it in `.pids`: the one that made it and
// the servers started in it.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

const PIDS = ".pids";
/** Folders from before `.pids` existed, or whose owner died before writing it, go after a day. */
const UNMARKED_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Records `pids` as users of `dir` (created if missing). */
export function markInUse(dir: string, pids: ReadonlyArray<number | undefined>): void {
  mkdirSync(dir, { recursive: true });
  const known = pids.filter((pid): pid is number => pid !== undefined);
  if (known.length > 0) appendFileSync(join(dir, PIDS), `${known.join("\n")}\n`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is someone else's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * In use: a live process in its own `.pids` or in a folder inside it (a test run's servers, a launcher
 * test's own infrastructure). `undefined` when nothing in it was ever marked.
 */
function inUse(dir: string, depth = 3): boolean | undefined {
  let marked: boolean | undefined;
  const pidsFile = join(dir, PIDS);
  if (existsSync(pidsFile)) {
    marked = false;
    const pids = readFileSync(pidsFile, "utf8").split("\n").map(Number);
    if (pids.some((pid) => Number.isInteger(pid) && pid > 0 && alive(pid))) return true;
  }
  if (depth === 0) return marked;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const inner = inUse(join(dir, entry.name), depth - 1);
    if (inner) return true;
    if (inner === false) marked = false;
  }
  return marked;
}

/**
 * Removes the folders in `parent` whose names match `names` and that no live process uses (an
 * unmarked one once it is a day old), with the `<name>.log` beside each. Returns what it removed.
 */
export function removeStaleRuns(parent: string, names: RegExp, now = Date.now()): string[] {
  if (!existsSync(parent)) return [];
  const removed: string[] = [];
  for (const entry of readdirSync(parent, { withFileTypes: true })) {
    if (!entry.isDirectory() || !names.test(entry.name)) continue;
    const dir = join(parent, entry.name);
    const used = inUse(dir);
    if (used === true) continue;
    if (used === undefined && now - statSync(dir).mtimeMs < UNMARKED_MAX_AGE_MS) continue;
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}.log`, { force: true });
    removed.push(entry.name);
  }
  return removed;
}
