/**
 * CPU time of processes over a measured stretch, from Linux's /proc (elsewhere the figures are
 * missing, not wrong): which process is busy says where throughput stops growing.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const TICKS_PER_S = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim()) || 100;

/** utime + stime of `pid` in seconds, or null when it cannot be read. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), from field 3 (state): utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return null;
  }
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
  /** Per process, percent of one core over the stretch (two busy cores = 200 %). */
  processes: Array<{ name: string; percent: number }>;
  /** The whole machine, percent of all its cores, whoever used them. */
  machinePercent: number | null;
}

/**
 * Starts measuring the named processes (and this one, as `self`); `stop()` gives each one's share of a
 * core since then. A pid that is gone by then is left out.
 */
export function cpuMeter(pids: Record<string, number | undefined>, self = "this process") {
  const t0 = performance.now();
  const m0 = machineTicks();
  const own0 = process.cpuUsage();
  const start = Object.entries(pids).flatMap(([name, pid]) => {
    const s = pid === undefined ? null : cpuSeconds(pid);
    return pid === undefined || s === null ? [] : [{ name, pid, s }];
  });
  return {
    stop(): CpuShares {
      const seconds = (performance.now() - t0) / 1000;
      const own = process.cpuUsage(own0);
      const processes = start.flatMap(({ name, pid, s }) => {
        const now = cpuSeconds(pid);
        return now === null ? [] : [{ name, percent: ((now - s) / seconds) * 100 }];
      });
      processes.push({ name: self, percent: ((own.user + own.system) / 1e6 / seconds) * 100 });
      const m1 = machineTicks();
      const machinePercent =
        m0 && m1 && m1.total > m0.total ? ((m1.busy - m0.busy) / (m1.total - m0.total)) * 100 : null;
      return { processes: processes.sort((a, b) => b.percent - a.percent), machinePercent };
    },
  };
}

export function formatCpu(shares: CpuShares): string {
  const each = shares.processes.map((p) => `${p.name} ${p.percent.toFixed(0)}%`).join(", ");
  const machine = shares.machinePercent === null ? "" : `; machine busy ${shares.machinePercent.toFixed(0)}%`;
  return `cpu (% of one core): ${each}${machine}`;
}
