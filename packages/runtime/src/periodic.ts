import type { Logger } from "./logger.ts";
import type { Stoppable } from "./service.ts";

/**
 * Runs `task` now (or after the first interval) and then `intervalMs` after each run ends, so runs of
 * one loop never overlap however slow a run is. A failed run is logged and the loop goes on; stop()
 * waits for the run in progress.
 */
export function startPeriodic(
  name: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  log: Logger,
  opts: { immediate?: boolean } = {},
): Stoppable {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = task()
      .then(
        () => undefined,
        (err: unknown) => log.warn({ err, loop: name }, "periodic task failed"),
      )
      .then(() => {
        if (!stopped) timer = setTimeout(run, intervalMs);
      });
  };
  if (opts.immediate ?? true) run();
  else timer = setTimeout(run, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
