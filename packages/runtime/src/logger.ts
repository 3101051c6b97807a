import { type Logger, pino } from "pino";

export type { Logger } from "pino";

/** Paths that may hold secrets anywhere in a log object; pino replaces them before serialising. */
const REDACT = [
  "apiKey",
  "*.apiKey",
  "headers['x-api-key']",
  "*.headers['x-api-key']",
  "webhookSecret",
  "*.webhookSecret",
  "secret",
  "*.secret",
  "bvn",
  "*.bvn",
  "*.*.bvn",
  "seed",
  "*.seed",
  "mnemonic",
  "NATS_NKEY_SEED",
  "*.NATS_NKEY_SEED",
  "authorization",
  "*.authorization",
];

type Destination = ReturnType<typeof pino.destination>;

/** This process's log destinations, ended before it exits (see `endLogs`). */
const destinations = new Set<Destination>();

export function createLogger(service: string, level = "info"): Logger {
  // pino's own default (buffered, written off the event loop), made here so `endLogs` can reach it.
  // Written as logged instead, every line would wait on the event loop for whatever reads it (a slow
  // pipe, a file on a busy disk).
  const destination = pino.destination({ dest: 1, sync: false, minLength: 0 });
  destinations.add(destination);
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: { paths: REDACT, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * Writes out what the loggers still hold, waiting at most `ms`, before the process exits. Otherwise
 * pino flushes at exit, synchronously, and that flush retries a failed write every 100 ms for ever
 * (sonic-boom 4): a process whose output reader went away as it stopped (a launcher killed, a closed
 * terminal) could never exit. An ended destination is no longer flushed at exit; one that did not end
 * in time has that flush turned off (`abandonLogs`), losing at most the lines it still held.
 */
export async function endLogs(ms = 1_000): Promise<void> {
  await Promise.all(
    [...destinations].map(
      (destination) =>
        new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, ms);
          destination.once("close", done);
          destination.once("error", done);
          destination.end();
        }),
    ),
  );
  abandonLogs();
}

/** Turns off pino's flush at exit for every destination (an exit that cannot wait for `endLogs`). */
export function abandonLogs(): void {
  for (const destination of destinations) destination.flushSync = () => undefined;
  destinations.clear();
}

/**
 * A child logger made on first use. Per-message children are mostly never written to, and pino's
 * child() serialises and redacts its bindings each time: a visible share of a busy consumer's CPU.
 */
export function lazyChild(log: Logger, bindings: () => Record<string, unknown>): () => Logger {
  let child: Logger | undefined;
  return () => {
    child ??= log.child(bindings());
    return child;
  };
}

/**
 * `lazyChild` where a Logger itself is expected (a request's context, handed to handlers that mostly
 * never log): the child is made when the logger is first touched, not when the request starts.
 */
export function lazyLogger(log: Logger, bindings: () => Record<string, unknown>): Logger {
  const child = lazyChild(log, bindings);
  return new Proxy(log, {
    get(_parent, prop) {
      const real = child();
      const value: unknown = Reflect.get(real, prop, real);
      return typeof value === "function" ? value.bind(real) : value;
    },
  });
}

/**
 * The logger for lifecycle lines the launcher (npm start) waits for, such as "service started": at
 * least as verbose as info, so LOG_LEVEL=warn or error does not hide them. Only "silent" (services run
 * inside a test process) keeps them back.
 */
export function lifecycleLogger(log: Logger): Logger {
  return log.isLevelEnabled("info") || log.level === "silent" ? log : log.child({}, { level: "info" });
}
