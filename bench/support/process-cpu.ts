/**
 * CPU time of processes over a measured stretch, from Linux's /proc (elsewhere the figures are
 * missing, not wrong): which process is busy says where throughput stops growing.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_S = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim()) || 100;

/**
 * The fields of `/proc/<pid>/stat` after the command name (which may hold spaces), from field 3 (state):
 * [1] is the parent pid, [11] utime, [12] stime. Null when the process is gone or there is no /proc.
 */
export function procStat(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Every process's pid, from /proc (empty without it). */
export function allPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((e) => /^\d+$/.test(e))
      .map(Number);
  } catch {
    return [];
  }
}

interface CpuTimes {
  total: number;
  kernel: number;
}

/** CPU seconds of `pid` so far: user and kernel (`stime`), or null when they cannot be read. */
function cpuTimes(pid: number): CpuTimes | null {
  const fields = procStat(pid);
  if (!fields) return null;
  const kernel = Number(fields[12]) / TICKS_PER_S;
  return { total: Number(fields[11]) / TICKS_PER_S + kernel, kernel };
}

/** Busy and total jiffies of the whole machine (every session on it), or null without /proc. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const cpu =
      readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const total = cpu.reduce((a, b) => a + b, 0);
    // idle + iowait
    return { busy: total - (cpu[3] ?? 0) - (cpu[4] ?? 0), total };
  } catch {
    return null;
  }
}

export interface CpuShares {
  /**
   * Per process, percent of one core over the stretch (two busy cores = 200 %), and how much of that was
   * in the kernel: on loopback, a socket write also runs the receiver's side of TCP, so a process whose
   * time is mostly kernel is paying for its messages, not its logic.
   */
  processes: Array<{ name: string; percent: number; kernelPercent?: number }>;
  /** The whole machine, percent of all its cores, whoever used them. */
  machinePercent: number | null;
}

/**
 * `root` and every process descended from it (PostgreSQL runs one backend process per connection:
 * their sum is the database's cost). Just `root` without /proc.
 */
export function processTree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const pid of allPids()) {
    const fields = procStat(pid);
    if (fields) parentOf.set(pid, Number(fields[1]));
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parentOf)
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  return [...tree];
}

/** A measured name's processes: one pid, several (summed), or a function asked each time for them. */
export type Pids = number | number[] | (() => number[]) | undefined;

/** Each pid once: a process listed twice must not count twice. */
const pidsOf = (pid: Pids): number[] => [...new Set(typeof pid === "function" ? pid() : [pid ?? []].flat())];

/**
 * Starts measuring the named processes and this one, as `self`; `stop()` gives each one's share of a
 * core since then. A name may stand for several pids (summed), or for a function that lists them: it is
 * asked again at the end, and a process born meanwhile (a connection's new database backend) counts in
 * full. A pid that is gone by then is left out.
 */
export function cpuMeter(pids: Record<string, Pids>, self = "this process") {
  const t0 = performance.now();
  const m0 = machineTicks();
  const own0 = process.cpuUsage();
  const start = new Map<string, Map<number, CpuTimes>>();
  for (const [name, pid] of Object.entries(pids)) {
    const each = new Map<number, CpuTimes>();
    for (const one of pidsOf(pid)) {
      const t = cpuTimes(one);
      if (t !== null) each.set(one, t);
    }
    start.set(name, each);
  }
  return {
    stop(): CpuShares {
      const seconds = (performance.now() - t0) / 1000;
      const own = process.cpuUsage(own0);
      const processes = Object.entries(pids).flatMap(([name, pid]) => {
        const before = start.get(name) ?? new Map<number, CpuTimes>();
        const now = typeof pid === "function" ? new Set([...before.keys(), ...pid()]) : before.keys();
        let used = 0;
        let kernel = 0;
        let seen = false;
        for (const one of now) {
          const t = cpuTimes(one);
          if (t === null) continue;
          seen = true;
          used += t.total - (before.get(one)?.total ?? 0);
          kernel += t.kernel - (before.get(one)?.kernel ?? 0);
        }
        const percent = (x: number) => (x / seconds) * 100;
        return seen ? [{ name, percent: percent(used), kernelPercent: percent(kernel) }] : [];
      });
      processes.push({
        name: self,
        percent: ((own.user + own.system) / 1e6 / seconds) * 100,
        kernelPercent: (own.system / 1e6 / seconds) * 100,
      });
      const m1 = machineTicks();
      const machinePercent =
        m0 && m1 && m1.total > m0.total ? ((m1.busy - m0.busy) / (m1.total - m0.total)) * 100 : null;
      return { processes: processes.sort((a, b) => b.percent - a.percent), machinePercent };
    },
  };
}

export function formatCpu(shares: CpuShares): string {
  const each = shares.processes
    .map((p) => {
      const kernel =
        p.kernelPercent !== undefined && p.percent >= 5 ? ` (kernel ${p.kernelPercent.toFixed(0)}%)` : "";
      return `${p.name} ${p.percent.toFixed(0)}%${kernel}`;
    })
    .join(", ");
  const machine = shares.machinePercent === null ? "" : `; machine busy ${shares.machinePercent.toFixed(0)}%`;
  return `cpu (% of one core): ${each}${machine}`;
}

/**
 * Read and write system calls `pid` has made so far (`/proc/<pid>/io`), or null where that cannot be read:
 * per request, they say whether a server writes each answer in one call.
 */
export function syscalls(pid: number | undefined): { reads: number; writes: number } | null {
  if (pid === undefined) return null;
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN);
    return { reads: field("syscr"), writes: field("syscw") };
  } catch {
    return null;
  }
}

/** System calls per request between two `syscalls` readings, as text ("" when either is missing). */
export function syscallsPer(
  before: ReturnType<typeof syscalls>,
  after: ReturnType<typeof syscalls>,
  requests: number,
): string {
  if (!before || !after || requests <= 0) return "";
  const per = (n: number) => (n / requests).toFixed(2);
  return `system calls per request: ${per(after.reads - before.reads)} reads, ${per(after.writes - before.writes)} writes`;
}

/**
 * Starts counting the named processes' read and write system calls (pids as `cpuMeter` takes them);
 * `stop(operations)` gives them per operation, "name writes/reads" each. Every message between
 * processes is a write on one side and a read on the other, so this counts a path's messages.
 */
export function syscallMeter(pids: Record<string, Pids>) {
  const start = new Map<number, { reads: number; writes: number }>();
  for (const pid of Object.values(pids))
    for (const one of pidsOf(pid)) {
      const calls = syscalls(one);
      if (calls) start.set(one, calls);
    }
  return {
    stop(operations: number): string {
      if (operations <= 0) return "";
      const per = (n: number) => (n / operations).toFixed(1);
      return Object.entries(pids)
        .flatMap(([name, pid]) => {
          let reads = 0;
          let writes = 0;
          let seen = false;
          for (const one of pidsOf(pid)) {
            const now = syscalls(one);
            if (!now) continue;
            seen = true;
            reads += now.reads - (start.get(one)?.reads ?? 0);
            writes += now.writes - (start.get(one)?.writes ?? 0);
          }
          return seen ? [`${name} ${per(writes)}/${per(reads)}`] : [];
        })
        .join(", ");
    },
  };
}

/** A process's CPU per operation in milliseconds, from its share of one core (%) and the operations per second. */
export const msPerOperation = (percent: number | undefined, perSecond: number): number | undefined =>
  percent === undefined || perSecond <= 0 ? undefined : (percent * 10) / perSecond;
