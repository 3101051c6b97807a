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

/**
 * Lines are written to standard output as they are logged, not buffered for a worker thread. pino's
 * buffered default flushes what is left when the process exits, and that flush retries a write that
 * failed with EPIPE every 100 ms for ever: a service whose log reader went away as it was stopped (a
 * launcher and its services signalled together, or the launcher killed) could never exit. Written at
 * once, a broken pipe is seen on the first line after it and logging simply stops.
 */
export function createLogger(service: string, level = "info"): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: { paths: REDACT, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.destination({ dest: 1, sync: true }),
  );
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
