import type { Consumer, JsMsg } from "@nats-io/jetstream";
import { WebhookWork } from "@ramp/contracts";
import { inConsumerSpan, type Logger, lazyChild, type MessageSigning, unsignedRefusal } from "@ramp/runtime";
import { type DeliverDeps, deliverOnce, type Job, type Outcome } from "./deliver.ts";
import { laneIdOf } from "./lanes.ts";

export interface SchedulerOptions {
  consumer: Consumer;
  deliver: DeliverDeps;
  log: Logger;
  /** Attempts in flight in this replica. */
  concurrency: number;
  /** Attempts in flight to one endpoint (scheme, host and port) in this replica. */
  perEndpoint: number;
  ackWaitMs: number;
  /** Only jobs this service signed are taken (see @ramp/runtime message-signing.ts). */
  signing?: MessageSigning | undefined;
}

export interface Scheduler {
  stop(): Promise<void>;
}

interface Endpoint {
  running: Set<Job>;
  waiting: Job[];
  /**
   * Moving average of how long the endpoint takes to answer a POST: its pace, once one has. Lane
   * bookkeeping is left out, so a stall of NATS is not taken for the endpoint's.
   */
  avgMs: number;
  /** POSTs answered here since the endpoint was last idle. */
  finished: number;
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
const TRIM_EVERY_MS = 250;
/** Turns of the event loop a POST and its bookkeeping wait through (connect, write, response, …). */
const LAG_TURNS = 20;
const OVERFLOW_MIN_MS = 500;
const OVERFLOW_MAX_MS = 30_000;
/**
 * The longest a job is sent away for until a round of the endpoint's POSTs (one per slot) has answered:
 * a pace read off its first jobs may be one stall (of NATS, of this machine) rather than the endpoint,
 * and parking its whole backlog on that for half a minute leaves the replica idle meanwhile.
 */
const UNPROVEN_MAX_MS = 2_000;
/** After an unexpected error (NATS or lane trouble) the message is tried again this much later. */
const ERROR_RETRY_MS = 1_000;

/**
 * Answers a message if the connection still allows it. One that cannot be answered (the connection is
 * closed or gone) is redelivered by the server once its ack wait ends, which is the outcome we want anyway.
 */
const quietly = (answer: () => void) => {
  try {
    answer();
  } catch {
    // Redelivered after ack_wait.
  }
};

export const endpointOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return "invalid";
  }
};

/**
 * Pulls deliveries from the shared durable consumer and sends them with bounded concurrency: at most
 * `concurrency` attempts in this replica and `perEndpoint` to any one endpoint, so an endpoint that
 * takes seconds to answer occupies only its own slots. Each endpoint may also queue in memory only what
 * it gets through within QUEUE_HORIZON_MS; the rest of its backlog is handed back to the stream (`nak`
 * with a delay scaled to how slow it is), so a slow endpoint never fills the replica's intake and
 * starves the others. An endpoint not timed yet may queue up to the replica's whole intake, and gives
 * back what exceeds its share (every TRIM_EVERY_MS) once its POSTs have taken long enough to show it slow.
 *
 * Ordering per lane: inside a replica two jobs of one lane never run at once and the lowest sequence
 * goes first; across replicas the lane's lease (lanes.ts) decides who sends.
 */
export async function startScheduler(o: SchedulerOptions): Promise<Scheduler> {
  const endpoints = new Map<string, Endpoint>();
  const busyLanes = new Set<string>();
  const running = new Set<Promise<void>>();
  const maxHeld = o.concurrency * 2;
  let held = 0;
  let active = 0;
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let roomWaiter: (() => void) | null = null;
  // How late the event loop runs, read from how late the trim timer fires (or is overdue). It decays
  // rather than drops, so jobs started while the loop was busy are not taken for a slow endpoint's the
  // moment it calms down.
  let loopLagMs = 0;
  let lastTick = performance.now();
  const lagAt = (now: number) => Math.max(loopLagMs, now - lastTick - TRIM_EVERY_MS);

  const signalRoom = () => {
    roomWaiter?.();
    roomWaiter = null;
  };

  function admit(msg: JsMsg): void {
    const refused = unsignedRefusal(o.signing, msg);
    if (refused) {
      o.log.error({ refused }, "queued delivery not signed by this service; terminated");
      quietly(() => msg.term("not signed by its publisher"));
      return;
    }
    let job: Job;
    try {
      const d = WebhookWork.deliver.payload.parse(msg.json());
      const log = lazyChild(o.log, () => ({
        deliveryId: d.deliveryId,
        subjectId: d.subjectId,
        sequence: d.sequence,
      }));
      job = {
        msg,
        d,
        laneId: laneIdOf(d.subjectId, d.url),
        endpoint: endpointOf(d.url),
        readyAt: 0,
        postedAt: null,
        postMs: null,
        get log() {
          return log();
        },
      };
    } catch (err) {
      o.log.error({ err }, "queued delivery does not match its contract; terminated");
      quietly(() => msg.term("invalid payload"));
      return;
    }
    let ep = endpoints.get(job.endpoint);
    if (!ep) {
      ep = { running: new Set(), waiting: [], avgMs: 0, finished: 0 };
      endpoints.set(job.endpoint, ep);
    }
    const now = performance.now();
    if (ep.waiting.length >= queueLimit(ep, now)) {
      sendBack(job, ep, now, ep.waiting.length);
      return;
    }
    ep.waiting.push(job);
    held++;
  }

  /**
   * How long the endpoint takes to answer beyond what this replica's own busyness explains: the average,
   * or longer while a POST in flight has taken longer, less LAG_TURNS turns of the event loop. Without that
   * allowance a burst that keeps the loop busy (every job then takes long) would mark every endpoint
   * slow and send its backlog round the stream again and again, which only adds to the load.
   */
  function paceOf(ep: Endpoint, now: number): number {
    let pace = ep.avgMs;
    for (const j of ep.running) if (j.postedAt !== null) pace = Math.max(pace, now - j.postedAt);
    return Math.max(0, pace - LAG_TURNS * lagAt(now));
  }

  function queueLimit(ep: Endpoint, now: number): number {
    const pace = paceOf(ep, now);
    if (pace === 0) return Number.POSITIVE_INFINITY;
    return o.perEndpoint * Math.max(QUEUED_PER_SLOT, Math.floor(QUEUE_HORIZON_MS / pace));
  }

  /** Back to the stream until about when the endpoint gets to it, `ahead` jobs being queued before it. */
  function sendBack(job: Job, ep: Endpoint, now: number, ahead: number): void {
    const expected = (paceOf(ep, now) * ahead) / o.perEndpoint;
    const max = ep.finished >= o.perEndpoint ? OVERFLOW_MAX_MS : UNPROVEN_MAX_MS;
    const delay = Math.min(max, Math.max(OVERFLOW_MIN_MS, expected));
    quietly(() => job.msg.nak(Math.round(delay * (1 + Math.random() * 0.2))));
  }

  /**
   * Gives back what an endpoint queued beyond its pace's share (it turned out slow, or slowed down).
   * A lane's later statuses go back with its earliest one sent back, so none overtakes it.
   */
  function trim(ep: Endpoint, now: number): number {
    const limit = queueLimit(ep, now);
    if (ep.waiting.length <= limit) return 0;
    const back = ep.waiting.slice(limit);
    const earliestBack = new Map<string, number>();
    for (const j of back)
      earliestBack.set(j.laneId, Math.min(earliestBack.get(j.laneId) ?? j.d.sequence, j.d.sequence));
    const kept: Job[] = [];
    for (const j of ep.waiting.slice(0, limit)) {
      const earliest = earliestBack.get(j.laneId);
      if (earliest !== undefined && j.d.sequence > earliest) back.push(j);
      else kept.push(j);
    }
    ep.waiting = kept;
    held -= back.length;
    for (const j of back) sendBack(j, ep, now, kept.length);
    return back.length;
  }

  /** The next job of `ep` that may run now: a free lane, and that lane's lowest sequence. */
  function pick(ep: Endpoint, now: number): Job | null {
    for (const candidate of ep.waiting) {
      if (busyLanes.has(candidate.laneId)) continue;
      let first = candidate;
      for (const j of ep.waiting)
        if (j.laneId === candidate.laneId && j.d.sequence < first.d.sequence) first = j;
      if (first.readyAt <= now) {
        ep.waiting.splice(ep.waiting.indexOf(first), 1);
        return first;
      }
    }
    return null;
  }

  function finish(job: Job, ep: Endpoint, outcome: Outcome): void {
    const tookMs = job.postMs;
    if (tookMs !== null) {
      ep.avgMs = ep.avgMs === 0 ? tookMs : ep.avgMs * 0.8 + tookMs * 0.2;
      ep.finished++;
    }
    ep.running.delete(job);
    active--;
    busyLanes.delete(job.laneId);
    if (outcome.done) held--;
    else if (stopping) {
      quietly(() => job.msg.nak());
      held--;
    } else {
      job.readyAt = outcome.retryAt;
      ep.waiting.push(job);
    }
    if (ep.running.size === 0 && ep.waiting.length === 0) endpoints.delete(job.endpoint);
    signalRoom();
    pump();
  }

  function start(job: Job, ep: Endpoint): void {
    job.postedAt = null;
    job.postMs = null;
    ep.running.add(job);
    active++;
    busyLanes.add(job.laneId);
    // Each step is a consumer span continuing the trace of the event that queued the delivery.
    const p = inConsumerSpan(job.msg, () => deliverOnce(o.deliver, job))
      .catch((err): Outcome => {
        job.log.error({ err }, "delivery step failed; the message is tried again");
        quietly(() => job.msg.nak(ERROR_RETRY_MS));
        return { done: true };
      })
      .then((outcome) => finish(job, ep, outcome));
    running.add(p);
    void p.finally(() => running.delete(p));
  }

  function pump(): void {
    if (stopping) return;
    const now = Date.now();
    // Round-robin over endpoints, one job each per pass, so no endpoint takes every free slot.
    for (let progressed = true; progressed && active < o.concurrency; ) {
      progressed = false;
      for (const ep of endpoints.values()) {
        if (active >= o.concurrency) break;
        if (ep.running.size >= o.perEndpoint) continue;
        const job = pick(ep, now);
        if (job) {
          start(job, ep);
          progressed = true;
        }
      }
    }
    let next = Number.POSITIVE_INFINITY;
    for (const ep of endpoints.values())
      for (const j of ep.waiting) if (j.readyAt > now) next = Math.min(next, j.readyAt);
    if (timer) clearTimeout(timer);
    timer = Number.isFinite(next) ? setTimeout(pump, next - now) : null;
  }

  // Jobs queued in memory are still unacknowledged: keep the server from redelivering them elsewhere.
  const keepAlive = setInterval(
    () => {
      for (const ep of endpoints.values()) for (const j of ep.waiting) quietly(() => j.msg.working());
    },
    Math.max(1_000, o.ackWaitMs / 3),
  );

  const trimmer = setInterval(() => {
    const now = performance.now();
    loopLagMs = Math.max(now - lastTick - TRIM_EVERY_MS, loopLagMs * 0.75);
    lastTick = now;
    let freed = 0;
    for (const ep of endpoints.values()) freed += trim(ep, now);
    if (freed > 0) signalRoom();
  }, TRIM_EVERY_MS);

  const messages = await o.consumer.consume({ max_messages: o.concurrency });
  const loop = (async () => {
    for await (const msg of messages) {
      while (held >= maxHeld && !stopping) await new Promise<void>((r) => (roomWaiter = r));
      if (stopping) {
        quietly(() => msg.nak());
        continue;
      }
      admit(msg);
      pump();
    }
  })().catch((err) => o.log.error({ err }, "delivery queue consumer ended"));

  return {
    async stop() {
      stopping = true;
      signalRoom();
      clearInterval(keepAlive);
      clearInterval(trimmer);
      if (timer) clearTimeout(timer);
      await messages.close();
      await loop;
      // Queued jobs go straight back to the stream for another replica; running attempts finish.
      for (const ep of endpoints.values()) {
        for (const j of ep.waiting) quietly(() => j.msg.nak());
        held -= ep.waiting.length;
        ep.waiting = [];
      }
      await Promise.allSettled([...running]);
    },
  };
}
