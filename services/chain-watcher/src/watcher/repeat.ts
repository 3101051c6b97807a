import type { Stoppable } from "@ramp/runtime";

/**
 * Runs `tick` now and then `intervalMs` after each run ends (never two at once); a failure goes to
 * `onError` and the next run still comes. `stop` waits for a run in progress.
 */
export function repeatEvery(
  intervalMs: number,
  tick: () => Promise<void>,
  onError: (err: unknown) => void,
): Stoppable & { stopped(): boolean } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = () => {
    running = tick()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, intervalMs);
      });
  };
  loop();
  return {
    stopped: () => stopped,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
