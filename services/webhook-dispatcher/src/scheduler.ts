import type { Consumer, JsMsg } from "@nats-io/jetstream";
import { WebhookWork } from "@ramp/contracts";
import { inConsumerSpan, type Logger } from "@ramp/runtime";
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
}

export interface Scheduler {
  stop(): Promise<void>;
}

interface Endpoint {
  active: number;
  waiting: Job[];
  /** Moving average of how long one job takes here: how long its overflow is sent away for. */
  avgMs: number;
}

/** Jobs one endpoint may have queued in memory, per slot; beyond that they wait in the stream. */
const QUEUED_PER_SLOT = 2;
const OVERFLOW_MIN_MS = 500;
const OVERFLOW_MAX_MS = 30_000;
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
 * takes seconds to answer occupies only its own slots. Each endpoint may also queue only a few jobs in
 * memory; the rest of its backlog is handed back to the stream (`nak` with a delay scaled to how slow
 * it is), so it never fills the replica's intake and starves the others.
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

  const signalRoom = () => {
    roomWaiter?.();
    roomWaiter = null;
  };

  function admit(msg: JsMsg): void {
    let job: Job;
    try {
      const d = WebhookWork.deliver.payload.parse(msg.json());
      job = {
        msg,
        d,
        laneId: laneIdOf(d.subjectId, d.url),
        endpoint: endpointOf(d.url),
        readyAt: 0,
        log: o.log.child({ deliveryId: d.deliveryId, subjectId: d.subjectId, sequence: d.sequence }),
      };
    } catch (err) {
      o.log.error({ err }, "queued delivery does not match its contract; terminated");
      quietly(() => msg.term("invalid payload"));
      return;
    }
    let ep = endpoints.get(job.endpoint);
    if (!ep) {
      ep = { active: 0, waiting: [], avgMs: 0 };
      endpoints.set(job.endpoint, ep);
    }
    if (ep.waiting.length >= o.perEndpoint * QUEUED_PER_SLOT) {
      const expected = (ep.avgMs * ep.waiting.length) / o.perEndpoint;
      const delay = Math.min(OVERFLOW_MAX_MS, Math.max(OVERFLOW_MIN_MS, expected));
      quietly(() => msg.nak(Math.round(delay * (1 + Math.random() * 0.2))));
      return;
    }
    ep.waiting.push(job);
    held++;
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

  function finish(job: Job, ep: Endpoint, outcome: Outcome, tookMs: number): void {
    ep.avgMs = ep.avgMs === 0 ? tookMs : ep.avgMs * 0.8 + tookMs * 0.2;
    ep.active--;
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
    if (ep.active === 0 && ep.waiting.length === 0) endpoints.delete(job.endpoint);
    signalRoom();
    pump();
  }

  function start(job: Job, ep: Endpoint): void {
    ep.active++;
    active++;
    busyLanes.add(job.laneId);
    const started = performance.now();
    // Each step is a consumer span continuing the trace of the event that queued the delivery.
    const p = inConsumerSpan(job.msg, () => deliverOnce(o.deliver, job))
      .catch((err): Outcome => {
        job.log.error({ err }, "delivery step failed; the message is tried again");
        quietly(() => job.msg.nak(ERROR_RETRY_MS));
        return { done: true };
      })
      .then((outcome) => finish(job, ep, outcome, performance.now() - started));
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
        if (ep.active >= o.perEndpoint) continue;
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
