/**
 * Whoever reads this process's output may go away: a closed terminal, a killed launcher, `| head`.
 * Node reports a failed write to stdout or stderr as an `error` event, and with no listener that ends
 * the process on the spot, in the middle of a stop, before it has stopped what it started (a service's
 * drain, the launcher's database and NATS). What cannot be written is dropped instead and the process
 * goes on.
 */
export function outliveLostOutput(): void {
  for (const out of [process.stdout, process.stderr]) out.on("error", () => undefined);
}

/**
 * Calls `gone` once the process that started this one has ended (Linux re-parents an orphan, so its
 * parent id changes). For a process that runs until it is told to stop: when whoever would tell it was
 * killed, nobody is left to do so.
 */
export function onParentGone(gone: () => void, everyMs = 500): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, everyMs);
  timer.unref();
}
