/**
 * How a benchmark script hands its figures to bench/run-all.ts: one `BENCH_RESULT <json>` line each on
 * stdout, next to the human-readable lines the script prints when it is run alone.
 */
export interface BenchFigure {
  /** Stable id the runner pairs figures and floors by. */
  key: string;
  label: string;
  value: number;
  unit: string;
  p50Ms?: number;
  p99Ms?: number;
}

export const RESULT_PREFIX = "BENCH_RESULT ";

export function report(figure: BenchFigure): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(figure)}\n`);
}

/** Durations come from the environment so `npm run bench` can smoke-run every script in seconds. */
export const envNumber = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};
