import type { JsMsg } from "@nats-io/jetstream";
import type { WebhookDelivery } from "@ramp/contracts";
import { FIRST_ANNOUNCED_SEQUENCE, SUPERSEDED_DELIVERY } from "@ramp/contracts";
import { fromHeaders, type Logger } from "@ramp/runtime";
import { type AttemptContext, attemptDelivery } from "./attempt.ts";
import type { AttemptLog } from "./attempt-log.ts";
import type { EndpointHealth } from "./endpoint-health.ts";
import type { LaneHold, LaneState, Lanes, LaneView } from "./lanes.ts";

/**
 * What a job answers: the work-queue message it was pulled as, or, for a first attempt made straight
 * from its event, a stand-in whose `nak` hands the delivery over to the work queue (scheduler.ts).
 */
export type JobMsg = Pick<
  JsMsg,
  "ack" | "nak" | "term" | "working" | "time" | "info" | "headers" | "subject"
>;

/** One queued delivery as a replica holds it between pulling it and acknowledging it. */
export interface Job {
  msg: JobMsg;
  /** Taken straight from its event (its first attempt), not from the work queue. */
  direct: boolean;
  d: WebhookDelivery;
  laneId: string;
  /** `scheme://host:port`: the unit whose concurrency is bounded, so a slow receiver only slows itself. */
  endpoint: string;
  /** Not to be tried before this time (waiting for an older status or for another replica's lease). */
  readyAt: number;
  /** When this step's POST went out (performance.now()), while it is in flight: how slow the endpoint is. */
  postedAt: number | null;
  /** How long this step's POST took, once it has answered. */
  postMs: number | null;
  /**
   * Set when the endpoint was paused and resumed: statuses held back come back within the pause's
   * recheck, so until then (plus the usual grace) a status waits for its predecessor as if new.
   */
  heldUntil?: number;
  log: Logger;
}

/** Done: the message was acked, naked or terminated. Otherwise the job stays in memory until `retryAt`. */
export type Outcome = { done: true } | { done: false; retryAt: number };

export interface DeliverDeps {
  lanes: Lanes;
  attemptLog: AttemptLog;
  attempt: AttemptContext;
  /** Seconds before each attempt; its length is the number of attempts. */
  schedule: number[];
  leaseMs: number;
  /** This process, as lane leases name it. */
  holder: string;
  /** Pauses a URL that fails for too long (endpoint-health.ts). */
  health?: EndpointHealth;
}

/** How long a status waits for an older one of its order that may still be on its way. */
const ORDER_GRACE_MS = 1_000;
/** How soon to look again at a lane another replica is sending on. */
const LANE_BUSY_MS = 200;
const DONE: Outcome = { done: true };

const FRESH: LaneView = { state: { delivered: -1, holder: null, until: 0, attempts: {} }, revision: 0 };

/**
 * Whether a status should wait a moment for an older one of its order that may still be on its way.
 * An order's first status change is sequence 1: its INIT (sequence 0) is never announced, so a lane
 * that delivered nothing yet has nothing to wait for before 1 (it used to hold every order's first
 * webhook for the whole grace). Payments have only sequence 0.
 */
export function waitsForPredecessor(sequence: number, delivered: number, ageMs: number): boolean {
  const predecessor = sequence - 1;
  return predecessor >= FIRST_ANNOUNCED_SEQUENCE && delivered < predecessor && ageMs < ORDER_GRACE_MS;
}

type Verdict = { send: true } | { send: false; outcome: Outcome; why?: string };

/**
 * What keeps a receiver's view of an order moving forward: a status at or below the lane's delivered
 * sequence is never sent (a newer one arrived, or this one did and only its ack was lost); a status
 * whose predecessor has not been delivered waits a moment for it, since events published back to back
 * can reach the queue out of order; and only the lease holder sends.
 */
function judge(x: DeliverDeps, job: Job, s: LaneState, now: number): Verdict {
  const { d, msg } = job;
  if (s.delivered >= d.sequence) {
    msg.ack();
    if (s.delivered === d.sequence) return { send: false, outcome: DONE };
    // Kept in the delivery log, so an integrator (and an audit) sees why this status never arrived.
    const { deliveryId, apiKeyId, type, subjectId, url, body } = d;
    x.attemptLog.record(
      { deliveryId, apiKeyId, type, subjectId, url, attempt: 0, body },
      { delivered: false, statusCode: null, durationMs: 0, error: SUPERSEDED_DELIVERY, response: null },
    );
    return { send: false, outcome: DONE, why: "stale status not delivered: a newer one already was" };
  }
  if (s.holder !== null && s.holder !== x.holder && s.until > now) {
    return { send: false, outcome: { done: false, retryAt: Math.min(s.until, now + LANE_BUSY_MS) } };
  }
  const made = s.attempts[String(d.sequence)] ?? 0;
  // Straight from the event only as a first attempt: a later one keeps to the retry schedule, from the queue.
  if (job.direct && made > 0) {
    msg.nak(0);
    return { send: false, outcome: DONE };
  }
  const age = now - msg.time.getTime();
  const firstDelayMs = (x.schedule[0] ?? 0) * 1000;
  // Handed over by a step made straight from the event: the wait it asked for (a retry's pause, or
  // the first attempt's delay) counts from then, not from when the queue got it.
  if (d.notBefore !== undefined) {
    if (now < d.notBefore) {
      msg.nak(d.notBefore - now);
      return { send: false, outcome: DONE };
    }
  } else if (made === 0 && age < firstDelayMs) {
    msg.nak(firstDelayMs - age);
    return { send: false, outcome: DONE };
  }
  const arrived = Math.max(msg.time.getTime(), job.heldUntil ?? 0);
  if (waitsForPredecessor(d.sequence, s.delivered, now - arrived)) {
    // Back from a paused endpoint: its predecessor may still be held back in the queue; look again then.
    if (arrived > msg.time.getTime()) {
      msg.nak(arrived + ORDER_GRACE_MS - now);
      return { send: false, outcome: DONE };
    }
    return { send: false, outcome: { done: false, retryAt: msg.time.getTime() + ORDER_GRACE_MS } };
  }
  return { send: true };
}

/**
 * Where a first claim may start without reading the lane: only where the lane as assumed makes `judge`
 * send (never wait, skip or hold back on a guess), so a wrong guess costs one failed compare-and-set and
 * a read, and nothing else.
 * - The lane this process last wrote, free, with exactly the predecessor delivered: an order's next
 *   status after one this replica sent (PROCESSING, then COMPLETED).
 * - Nothing remembered, and a status with no predecessor to wait for (every payment, an order's first
 *   announced status), on its first delivery: a new lane, created and leased in one write.
 * Otherwise (undefined) the lane is read first.
 */
export function startingView(
  remembered: LaneView | undefined,
  sequence: number,
  deliveryCount: number,
): LaneView | undefined {
  if (remembered)
    return remembered.state.holder === null && remembered.state.delivered === sequence - 1
      ? remembered
      : undefined;
  return sequence <= FIRST_ANNOUNCED_SEQUENCE && deliveryCount === 1 ? FRESH : undefined;
}

/** Takes the lane's lease, or says what to do instead. */
async function claimLane(x: DeliverDeps, job: Job): Promise<{ hold: LaneHold } | { outcome: Outcome }> {
  const { d, msg } = job;
  let view =
    startingView(x.lanes.remembered(job.laneId), d.sequence, msg.info.deliveryCount) ??
    (await x.lanes.look(job.laneId));
  for (let tries = 0; ; tries++) {
    const now = Date.now();
    const verdict = judge(x, job, view.state, now);
    if (!verdict.send) {
      if (verdict.why) job.log.info(verdict.why);
      return { outcome: verdict.outcome };
    }
    const hold = await x.lanes.take(job.laneId, view, x.holder, x.leaseMs);
    if (hold) return { hold };
    // Someone wrote the lane between our read and our write: look again, once, then let it settle.
    if (tries > 0) return { outcome: { done: false, retryAt: now + LANE_BUSY_MS } };
    view = await x.lanes.look(job.laneId);
  }
}

/** One step of one delivery: at most one signed POST, then the lane settled and the message answered. */
export async function deliverOnce(x: DeliverDeps, job: Job): Promise<Outcome> {
  // `job.log` only where a line is written: reading it makes the job's child logger (pino's child()
  // serialises and redacts its bindings), and a delivery that goes through writes none.
  const { d, msg } = job;
  if (x.health) {
    const { paused, resumedAt } = await x.health.state(d.url);
    if (paused) {
      msg.nak(x.health.recheckMs);
      return DONE;
    }
    if (resumedAt !== null) job.heldUntil = resumedAt + x.health.recheckMs;
  }
  const claimed = await claimLane(x, job);
  if ("outcome" in claimed) return claimed.outcome;
  const { hold } = claimed;
  const seq = String(d.sequence);
  const n = (hold.state.attempts[seq] ?? 0) + 1;
  if (n > x.schedule.length) {
    // Its last attempt was settled but the message not terminated (a crash in between).
    await x.lanes.settle(hold, (s) => ({ delivered: s.delivered, attempts: without(s.attempts, seq) }));
    msg.term("retry schedule exhausted");
    return DONE;
  }

  job.postedAt = performance.now();
  const r = await attemptDelivery(x.attempt, d.apiKeyId, d.url, d.body);
  job.postMs = performance.now() - job.postedAt;
  job.postedAt = null;
  const { deliveryId, apiKeyId, type, subjectId, url, body } = d;
  x.attemptLog.record({ deliveryId, apiKeyId, type, subjectId, url, attempt: n, body }, r);
  await x.health
    ?.record(url, apiKeyId, r.delivered, fromHeaders(msg.headers))
    .catch((err: unknown) => job.log.warn({ err, url }, "endpoint health not recorded"));

  // The lane is settled before the message is answered: a crash in between redelivers a message the
  // lane already accounts for, never the other way round.
  const pause = x.schedule[n];
  if (r.delivered) {
    await x.lanes.settle(hold, (s) => {
      const delivered = Math.max(s.delivered, d.sequence);
      return { delivered, attempts: above(s.attempts, delivered) };
    });
    msg.ack();
  } else if (pause === undefined) {
    await x.lanes.settle(hold, (s) => ({ delivered: s.delivered, attempts: without(s.attempts, seq) }));
    msg.term(`failed after ${n} attempts`);
    job.log.warn({ attempt: n, error: r.error }, "webhook delivery failed for good");
  } else {
    await x.lanes.settle(hold, (s) => ({ delivered: s.delivered, attempts: { ...s.attempts, [seq]: n } }));
    msg.nak(pause * 1000);
    job.log.info({ attempt: n, error: r.error, retryInS: pause }, "webhook attempt failed; will retry");
  }
  return DONE;
}

const without = (a: Record<string, number>, key: string) => {
  const { [key]: _gone, ...rest } = a;
  return rest;
};

/** Attempt counts of statuses newer than `delivered`: the older ones are superseded. */
const above = (a: Record<string, number>, delivered: number) =>
  Object.fromEntries(Object.entries(a).filter(([k]) => Number(k) > delivered));
