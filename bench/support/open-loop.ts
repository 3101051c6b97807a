/**
 * Calls at a fixed rate for a fixed time, whatever the answers take (an open loop, unlike closed-loop.ts):
 * the latency a client sees at a given load. Each call's latency counts from when it was due, not from
 * when it went out, so a stalled server shows up in the figures instead of silently lowering the rate.
 * At most `maxInFlight` calls are out at once (as a client with that many connections): a call due while
 * all are busy waits for one, and that wait is part of its latency.
 */
import { type LoopResult, loopResult } from "./closed-loop.ts";

export async function openLoop(
  perSecond: number,
  durationS: number,
  maxInFlight: number,
  once: () => Promise<boolean>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  let freed: (() => void) | undefined;
  const started = performance.now();
  const total = Math.floor(perSecond * durationS);
  const calls: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight >= maxInFlight) await new Promise<void>((resolve) => (freed = resolve));
    inFlight++;
    calls.push(
      once()
        .then(
          (ok) => {
            if (ok) latencies.push(performance.now() - due);
            else errors++;
          },
          () => {
            errors++;
          },
        )
        .finally(() => {
          inFlight--;
          freed?.();
        }),
    );
  }
  await Promise.all(calls);
  return loopResult(latencies, errors, (performance.now() - started) / 1000);
}
