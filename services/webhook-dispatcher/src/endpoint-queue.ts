/**
 * The scheduler's in-memory queue, per endpoint, as plain functions of (state, now): what to run next,
 * what to hand back to the stream and when. No I/O, no timers, no randomness: scheduler.ts owns the
 * NATS loop and carries out what these decide.
 *
 * Two clocks, as the jobs carry them: a POST's timing (`postedAt`, the loop lag, the `now` of the pace
 * functions) is on performance.now(); `readyAt` (a retry's time, from deliver.ts) is on Date.now().
 */

/** What the queue reads of a job; deliver.ts's Job is one. */
export interface QueuedJob {
  laneId: string;
  /** `scheme://host:port`: the unit whose concurrency is bounded. */
  endpoint: string;
  d: { sequence: number };
  /** Not to be tried before this time (wall clock). */
  readyAt: number;
  /** When the POST in flight went out (monotonic clock), while one is. */
  postedAt: number | null;
  /** How long the last POST took, once it answered. */
  postMs: number | null;
}

export interface QueueLimits {
  /** Attempts in flight in this replica. */
  concurrency: number;
  /** Attempts in flight to one endpoint in this replica. */
  perEndpoint: number;
}

export interface EndpointQueue<J extends QueuedJob> {
  running: Set<J>;
  waiting: J[];
  /**
   * Moving average of how long the endpoint takes to answer a POST: its pace, once one has. Lane
   * bookkeeping is left out, so a stall of NATS is not taken for the endpoint's.
   */
  avgMs: number;
  /** POSTs answered here since the endpoint was last idle. */
  finished: number;
}

export interface QueueState<J extends QueuedJob> {
  endpoints: Map<string, EndpointQueue<J>>;
  busyLanes: Set<string>;
  /** Jobs in memory, running or waiting: the intake stops at twice the concurrency. */
  held: number;
  active: number;
  /**
   * How late the event loop runs, read from how late the trim tick comes. It decays rather than drops,
   * so jobs started while the loop was busy are not taken for a slow endpoint's the moment it calms down.
   */
  loopLagMs: number;
  lastTick: number;
}

/** A job handed back to the stream, to come again in `delayMs`. */
export interface SentBack<J> {
  job: J;
  delayMs: number;
}

/**
 * An endpoint may queue in memory as many jobs as its slots get through in this long at its pace; the
 * rest of its backlog waits in the stream. A fast receiver's backlog so stays in memory rather than
 * going round the stream (a nak, a redelivery delay and a pull each time), and a slow one's is a few jobs.
 */
const QUEUE_HORIZON_MS = 1_000;
/** …but at least this many per slot, so a slow endpoint's next jobs are at hand when a slot frees. */
const QUEUED_PER_SLOT = 2;
/** How often queues are checked against their endpoint's pace, which grows while a POST hangs. */
export const TRIM_EVERY_MS = 250;
/** Turns of the event loop a POST and its bookkeeping wait through (connect, write, response, …). */
const LAG_TURNS = 20;
export const OVERFLOW_MIN_MS = 500;
export const OVERFLOW_MAX_MS = 30_000;
/**
 * The longest a job is sent away for until a round of the endpoint's POSTs (one per slot) has answered:
 * a pace read off its first jobs may be one stall (of NATS, of this machine) rather than the endpoint,
 * and parking its whole backlog on that for half a minute leaves the replica idle meanwhile.
 */
export const UNPROVEN_MAX_MS = 2_000;

export const newQueueState = <J extends QueuedJob>(now: number): QueueState<J> => ({
  endpoints: new Map(),
  busyLanes: new Set(),
  held: 0,
  active: 0,
  loopLagMs: 0,
  lastTick: now,
});

export const isFull = (s: QueueState<QueuedJob>, limits: QueueLimits): boolean =>
  s.held >= limits.concurrency * 2;

const lagAt = (s: QueueState<QueuedJob>, now: number) =>
  Math.max(s.loopLagMs, now - s.lastTick - TRIM_EVERY_MS);

/**
 * How long the endpoint takes to answer beyond what this replica's own busyness explains: the average,
 * or longer while a POST in flight has taken longer, less LAG_TURNS turns of the event loop. Without that
 * allowance a burst that keeps the loop busy (every job then takes long) would mark every endpoint
 * slow and send its backlog round the stream again and again, which only adds to the load.
 */
export function paceOf<J extends QueuedJob>(s: QueueState<J>, ep: EndpointQueue<J>, now: number): number {
  let pace = ep.avgMs;
  for (const j of ep.running) if (j.postedAt !== null) pace = Math.max(pace, now - j.postedAt);
  return Math.max(0, pace - LAG_TURNS * lagAt(s, now));
}

/** How many jobs the endpoint may keep waiting in memory; unbounded until it has a pace. */
export function queueLimit<J extends QueuedJob>(
  s: QueueState<J>,
  limits: QueueLimits,
  ep: EndpointQueue<J>,
  now: number,
): number {
  const pace = paceOf(s, ep, now);
  if (pace === 0) return Number.POSITIVE_INFINITY;
  return limits.perEndpoint * Math.max(QUEUED_PER_SLOT, Math.floor(QUEUE_HORIZON_MS / pace));
}

/** Back to the stream until about when the endpoint gets to it, `ahead` jobs being queued before it. */
export function sendBackDelay<J extends QueuedJob>(
  s: QueueState<J>,
  limits: QueueLimits,
  ep: EndpointQueue<J>,
  now: number,
  ahead: number,
): number {
  const expected = (paceOf(s, ep, now) * ahead) / limits.perEndpoint;
  const max = ep.finished >= limits.perEndpoint ? OVERFLOW_MAX_MS : UNPROVEN_MAX_MS;
  return Math.min(max, Math.max(OVERFLOW_MIN_MS, expected));
}

/** Queues a new job behind its endpoint, or says how long it waits in the stream when that queue is full. */
export function admit<J extends QueuedJob>(
  s: QueueState<J>,
  limits: QueueLimits,
  job: J,
  now: number,
): SentBack<J> | null {
  let ep = s.endpoints.get(job.endpoint);
  if (!ep) {
    ep = { running: new Set(), waiting: [], avgMs: 0, finished: 0 };
    s.endpoints.set(job.endpoint, ep);
  }
  if (ep.waiting.length >= queueLimit(s, limits, ep, now)) {
    return { job, delayMs: sendBackDelay(s, limits, ep, now, ep.waiting.length) };
  }
  ep.waiting.push(job);
  s.held++;
  return null;
}

/**
 * Gives back what an endpoint queued beyond its pace's share (it turned out slow, or slowed down).
 * A lane's later statuses go back with its earliest one sent back, so none overtakes it.
 */
export function trim<J extends QueuedJob>(
  s: QueueState<J>,
  limits: QueueLimits,
  ep: EndpointQueue<J>,
  now: number,
): SentBack<J>[] {
  const limit = queueLimit(s, limits, ep, now);
  if (ep.waiting.length <= limit) return [];
  const back = ep.waiting.slice(limit);
  const earliestBack = new Map<string, number>();
  for (const j of back)
    earliestBack.set(j.laneId, Math.min(earliestBack.get(j.laneId) ?? j.d.sequence, j.d.sequence));
  const kept: J[] = [];
  for (const j of ep.waiting.slice(0, limit)) {
    const earliest = earliestBack.get(j.laneId);
    if (earliest !== undefined && j.d.sequence > earliest) back.push(j);
    else kept.push(j);
  }
  ep.waiting = kept;
  s.held -= back.length;
  return back.map((job) => ({ job, delayMs: sendBackDelay(s, limits, ep, now, kept.length) }));
}

/** The periodic check: reads the loop's lag off how late this tick came, then trims every endpoint. */
export function tick<J extends QueuedJob>(s: QueueState<J>, limits: QueueLimits, now: number): SentBack<J>[] {
  s.loopLagMs = Math.max(now - s.lastTick - TRIM_EVERY_MS, s.loopLagMs * 0.75);
  s.lastTick = now;
  return [...s.endpoints.values()].flatMap((ep) => trim(s, limits, ep, now));
}

/** The next job of `ep` that may run at `wallNow`: a free lane, and that lane's lowest sequence. */
function pick<J extends QueuedJob>(s: QueueState<J>, ep: EndpointQueue<J>, wallNow: number): J | null {
  for (const candidate of ep.waiting) {
    if (s.busyLanes.has(candidate.laneId)) continue;
    let first = candidate;
    for (const j of ep.waiting)
      if (j.laneId === candidate.laneId && j.d.sequence < first.d.sequence) first = j;
    if (first.readyAt <= wallNow) {
      ep.waiting.splice(ep.waiting.indexOf(first), 1);
      return first;
    }
  }
  return null;
}

/**
 * The jobs to start now, marked running: round-robin over endpoints, one job each per pass, so no
 * endpoint takes every free slot; at most `concurrency` in all and `perEndpoint` to one endpoint.
 */
export function takeRunnable<J extends QueuedJob>(
  s: QueueState<J>,
  limits: QueueLimits,
  wallNow: number,
): J[] {
  const started: J[] = [];
  for (let progressed = true; progressed && s.active < limits.concurrency; ) {
    progressed = false;
    for (const ep of s.endpoints.values()) {
      if (s.active >= limits.concurrency) break;
      if (ep.running.size >= limits.perEndpoint) continue;
      const job = pick(s, ep, wallNow);
      if (!job) continue;
      job.postedAt = null;
      job.postMs = null;
      ep.running.add(job);
      s.active++;
      s.busyLanes.add(job.laneId);
      started.push(job);
      progressed = true;
    }
  }
  return started;
}

/** When the earliest waiting job that is not ready yet becomes ready (wall clock); null when none waits. */
export function nextWake(s: QueueState<QueuedJob>, wallNow: number): number | null {
  let next = Number.POSITIVE_INFINITY;
  for (const ep of s.endpoints.values())
    for (const j of ep.waiting) if (j.readyAt > wallNow) next = Math.min(next, j.readyAt);
  return Number.isFinite(next) ? next : null;
}

/**
 * A step of `job` ended: `retryAt` (wall clock) puts it back in its queue; undefined lets it go (it was
 * answered). Returns true when the job goes back to the stream instead (`stopping`): the caller naks it.
 */
export function finish<J extends QueuedJob>(
  s: QueueState<J>,
  job: J,
  retryAt: number | undefined,
  stopping: boolean,
): boolean {
  const ep = s.endpoints.get(job.endpoint);
  if (!ep) throw new Error(`finished a job of an endpoint not queued: ${job.endpoint}`);
  if (job.postMs !== null) {
    ep.avgMs = ep.avgMs === 0 ? job.postMs : ep.avgMs * 0.8 + job.postMs * 0.2;
    ep.finished++;
  }
  ep.running.delete(job);
  s.active--;
  s.busyLanes.delete(job.laneId);
  const giveBack = retryAt !== undefined && stopping;
  if (retryAt === undefined || giveBack) s.held--;
  else {
    job.readyAt = retryAt;
    ep.waiting.push(job);
  }
  if (ep.running.size === 0 && ep.waiting.length === 0) s.endpoints.delete(job.endpoint);
  return giveBack;
}

/** Every waiting job, taken out of the queue (a stop hands them back to the stream). */
export function drain<J extends QueuedJob>(s: QueueState<J>): J[] {
  const out: J[] = [];
  for (const ep of s.endpoints.values()) {
    out.push(...ep.waiting);
    s.held -= ep.waiting.length;
    ep.waiting = [];
  }
  return out;
}

/** Every job in memory, waiting or running. */
export function* heldJobs<J extends QueuedJob>(s: QueueState<J>): Iterable<J> {
  for (const ep of s.endpoints.values()) {
    yield* ep.waiting;
    yield* ep.running;
  }
}
