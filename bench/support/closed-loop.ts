/** `concurrency` callers each repeating `once` back to back until `durationS` has passed. */
export interface LoopResult {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Calls that failed or answered `false`; they are not counted in the rate. */
  errors: number;
}

export async function closedLoop(
  concurrency: number,
  durationS: number,
  once: () => Promise<boolean>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + durationS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const ok = await once().catch(() => false);
        if (ok) latencies.push(performance.now() - t);
        else errors++;
      }
    }),
  );
  return loopResult(latencies, errors, (performance.now() - started) / 1000);
}

/** Rate and percentiles of the calls that succeeded, in `seconds`. */
export function loopResult(latencies: number[], errors: number, seconds: number): LoopResult {
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? Number.NaN;
  return { perSecond: latencies.length / seconds, p50Ms: pct(0.5), p99Ms: pct(0.99), errors };
}
