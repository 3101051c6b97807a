import {
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerUpdateConfig,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
} from "@nats-io/jetstream";
import { RequestError, TimeoutError } from "@nats-io/transport-node";
import type { Logger } from "./logger.ts";

/**
 * JetStream API errors a cluster answers while it fails over and that go away by themselves: no
 * meta leader yet (10008), results from part of the cluster (10004), no peer to place a replica on
 * while a node is down (10005, 10023), an asset whose leader is being elected (offline, 10118/10119,
 * and their variants with a reason, 10194/10195).
 */
const TRANSIENT_API_CODES = new Set([10004, 10005, 10008, 10023, 10118, 10119, 10194, 10195]);

/**
 * True for what a setup call meets while a NATS node is down or a JetStream leader is being elected:
 * a request that timed out, a request nobody answered (the node's JetStream not up yet), or one of the
 * API errors above. Anything else (a wrong configuration, missing permissions) is not retried.
 */
export function isTransientJetStreamError(err: unknown): boolean {
  if (err instanceof TimeoutError || (err instanceof Error && err.name === "TimeoutError")) return true;
  if (err instanceof RequestError && err.isNoResponders()) return true;
  if (err instanceof JetStreamApiError) return TRANSIENT_API_CODES.has(err.code);
  // The JetStream client reports "no responders" as JetStreamNotEnabled, the request error as its cause.
  return (
    err instanceof Error &&
    err.cause !== undefined &&
    err.cause !== err &&
    isTransientJetStreamError(err.cause)
  );
}

/** The server answered that the stream or consumer asked about does not exist (and only that). */
export const isJetStreamNotFound = (err: unknown) =>
  err instanceof JetStreamApiError &&
  (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound);

/**
 * Looks a stream or consumer up and creates it only when the server says it does not exist: a look-up
 * that timed out says nothing, and creating then (with whatever settings this caller has) can clash
 * with what exists. A create that loses a race with another replica's counts as done.
 */
export async function lookUpOrCreate(look: () => Promise<unknown>, create: () => Promise<unknown>) {
  try {
    await look();
    return;
  } catch (err) {
    if (!isJetStreamNotFound(err)) throw err;
  }
  try {
    await create();
  } catch (err) {
    await look().catch(() => {
      throw err;
    });
  }
}

/**
 * A durable consumer as this version sets it up: created with `config` when it does not exist; else the
 * `settable` fields of the existing one are brought to this version's values, in one update and only
 * when one differs. So a setting a later version changes (an ack wait) reaches a durable an earlier
 * version created, and a start that changes nothing sends nothing more.
 */
export async function ensureDurable(
  jsm: JetStreamManager,
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
  settable: readonly (keyof ConsumerUpdateConfig)[],
): Promise<void> {
  let existing: ConsumerInfo | undefined;
  await lookUpOrCreate(
    async () => {
      existing = await jsm.consumers.info(stream, config.durable_name);
    },
    () => jsm.consumers.add(stream, config),
  );
  const current = existing?.config;
  if (!current) return;
  const changed = settable.filter((k) => current[k] !== config[k]);
  if (changed.length > 0)
    await jsm.consumers.update(
      stream,
      config.durable_name,
      Object.fromEntries(changed.map((k) => [k, config[k]])) as Partial<ConsumerUpdateConfig>,
    );
}

export interface SetupRetryOptions {
  log?: Logger | undefined;
  /** Give up (rethrow the last error) once this long has passed since the first attempt. */
  budgetMs?: number;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Long enough for a three-node cluster to elect new leaders after a node dies (seconds), short enough
 * that a service which cannot reach JetStream at all still fails its start and is seen failing.
 */
export const SETUP_BUDGET_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs one JetStream setup call (stream, consumer or bucket creation at boot), again after a transient
 * failure, with doubling delays, until it succeeds or the budget is spent. Every call it wraps must be
 * safe to repeat: a timed-out create may have happened, so each first looks at what exists.
 */
export async function retryJetStreamSetup<T>(
  what: string,
  call: () => Promise<T>,
  opts: SetupRetryOptions = {},
): Promise<T> {
  const budgetMs = opts.budgetMs ?? SETUP_BUDGET_MS;
  const maxDelayMs = opts.maxDelayMs ?? 4_000;
  const started = Date.now();
  let delay = opts.firstDelayMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const spent = Date.now() - started;
      if (!isTransientJetStreamError(err) || spent + delay > budgetMs) throw err;
      opts.log?.warn(
        { err: err instanceof Error ? err.message : String(err), attempt, retryInMs: delay },
        `${what}: JetStream not answering (failing over?); trying again`,
      );
      await sleep(delay);
      delay = Math.min(maxDelayMs, delay * 2);
    }
  }
}
