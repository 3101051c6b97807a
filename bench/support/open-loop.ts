/**
 * Calls at a fixed rate for a fixed time, whatever the answers take (an open loop, unlike closed-loop.ts):
 * the latency a client sees at a given load. Each call's latency counts from when it was due, not from
 * when it went out, so a stalled event loop shows up in the figures instead of silently lowering the rate.
 */
import { type LoopResult, loopResult } from "./closed-loop.ts";

export async function openLoop(
  perSecond: number,
  durationS: number,
  once: () => Promise<boolean>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const total = Math.floor(perSecond * durationS);
  const calls: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    calls.push(
      once().then(
        (ok) => {
          if (ok) latencies.push(performance.now() - due);
          else errors++;
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(calls);
  return loopResult(latencies, errors, (performance.now() - started) / 1000);
}
