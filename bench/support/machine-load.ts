import { cpus, loadavg } from "node:os";

/** The machine's load beside a figure: a figure from a busy machine is not the system's own. */
export interface MachineLoad {
  cores: number;
  /** 1, 5 and 15-minute load averages, as the kernel keeps them. */
  loadavg: [number, number, number];
  at: string;
}

export function machineLoad(): MachineLoad {
  const [one = 0, five = 0, fifteen = 0] = loadavg();
  const round = (n: number) => Number(n.toFixed(2));
  return {
    cores: cpus().length,
    loadavg: [round(one), round(five), round(fifteen)],
    at: new Date().toISOString(),
  };
}

/**
 * Above this 1-minute load before a run, its figures are printed but not kept as the results: other
 * work shared the cores. Default: half the cores (BENCH_MAX_LOAD overrides).
 */
export function maxQuietLoad(cores: number): number {
  const set = Number(process.env.BENCH_MAX_LOAD);
  return Number.isFinite(set) && set > 0 ? set : cores / 2;
}

export const formatLoad = (l: MachineLoad) =>
  `load ${l.loadavg.join(" / ")} (1 / 5 / 15 min) on ${l.cores} cores`;
