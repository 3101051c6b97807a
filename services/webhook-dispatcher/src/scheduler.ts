import type { Consumer, JsMsg } from "@nats-io/jetstream";
import { type WebhookDelivery, WebhookWork } from "@ramp/contracts";
import {
  inConsumerSpan,
  type Logger,
  lazyChild,
  type MessageSigning,
  type TraceContext,
  unsignedRefusal,
} from "@ramp/runtime";
import { type DeliverDeps, deliverOnce, type Job, type JobMsg, type Outcome } from "./deliver.ts";
import * as queue from "./endpoint-queue.ts";
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
  /** Queues a delivery in the work queue (work-queue.ts): where a first attempt made from its event goes next. */
  handOver(d: WebhookDelivery, trace: TraceContext): Promise<void>;
}

export interface Scheduler {
  /**
   * Takes a new delivery straight from its event, its event standing in for a work-queue message: it
   * waits in this replica's memory and is attempted like any job, and resolves once answered (delivered,
   * given up, or handed over to the work queue for what comes next: a retry after its pause, a slow
   * endpoint's backlog). False when this replica holds all it may (the caller queues the delivery). Until
   * it resolves, the event stays unacknowledged, so a crash meanwhile redelivers the event.
   */
  offer(d: WebhookDelivery, event: JsMsg, trace: TraceContext): Promise<boolean>;
  stop(): Promise<void>;
}

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
 * it gets through within a second at its pace (endpoint-queue.ts decides); the rest of its backlog is handed back to the stream (`nak`
 * with a delay scaled to how slow it is), so a slow endpoint never fills the replica's intake and
 * starves the others. An endpoint not timed yet may queue up to the replica's whole intake, and gives
 * back what exceeds its share (every trim tick) once its POSTs have taken long enough to show it slow.
 *
 * Ordering per lane: inside a replica two jobs of one lane never run at once and the lowest sequence
 * goes first; across replicas the lane's lease (lanes.ts) decides who sends.
 *
 * Jobs come from two places: the work queue, and `offer`, which takes an order status's delivery
 * straight from its event (the event, unacknowledged, standing in for the queue's message). Both wait
 * in the same endpoint queues under the same rules; what an event's job cannot finish on its first
 * attempt goes on through the work queue.
 */
export async function startScheduler(o: SchedulerOptions): Promise<Scheduler> {
  const limits: queue.QueueLimits = { concurrency: o.concurrency, perEndpoint: o.perEndpoint };
  const state = queue.newQueueState<Job>(performance.now());
  const running = new Set<Promise<void>>();
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let roomWaiter: (() => void) | null = null;

  const signalRoom = () => {
    roomWaiter?.();
    roomWaiter = null;
  };

  /** Jittered, so a slow endpoint's backlog does not come back all at once. */
  const sendBack = ({ job, delayMs }: queue.SentBack<Job>) =>
    quietly(() => job.msg.nak(Math.round(delayMs * (1 + Math.random() * 0.2))));

  function newJob(msg: JobMsg, d: WebhookDelivery, direct = false): Job {
    const log = lazyChild(o.log, () => ({
      deliveryId: d.deliveryId,
      subjectId: d.subjectId,
      sequence: d.sequence,
    }));
    return {
      msg,
      d,
      direct,
      laneId: laneIdOf(d.subjectId, d.url),
      endpoint: endpointOf(d.url),
      readyAt: 0,
      postedAt: null,
      postMs: null,
      get log() {
        return log();
      },
    };
  }

  function jobOf(msg: JsMsg): Job | null {
    const refused = unsignedRefusal(o.signing, msg);
    if (refused) {
      o.log.error({ refused }, "queued delivery not signed by this service; terminated");
      quietly(() => msg.term("not signed by its publisher"));
      return null;
    }
    try {
      return newJob(msg, WebhookWork.deliver.payload.parse(msg.json()));
    } catch (err) {
      o.log.error({ err }, "queued delivery does not match its contract; terminated");
      quietly(() => msg.term("invalid payload"));
      return null;
    }
  }

  function start(job: Job): void {
    // Each step is a consumer span continuing the trace of the event that queued the delivery.
    const p = inConsumerSpan(job.msg, () => deliverOnce(o.deliver, job))
      .catch((err): Outcome => {
        job.log.error({ err }, "delivery step failed; the message is tried again");
        quietly(() => job.msg.nak(ERROR_RETRY_MS));
        return { done: true };
      })
      .then((outcome) => {
        if (queue.finish(state, job, outcome.done ? undefined : outcome.retryAt, stopping))
          quietly(() => job.msg.nak());
        // An event's job is never left unanswered, or its event would wait for ever: a step that ended
        // without answering (none should) hands the delivery over.
        else if (job.direct && outcome.done) job.msg.nak();
        signalRoom();
        pump();
      });
    running.add(p);
    void p.finally(() => running.delete(p));
  }

  /**
   * A job whose message is its event (see `offer`): acknowledging or terminating it answers the event;
   * a `nak` hands the delivery over to the work queue, to be tried no sooner than its delay. The first
   * answer counts; the event is acknowledged once the hand-over is published.
   */
  function eventJob(
    d: WebhookDelivery,
    event: JsMsg,
    trace: TraceContext,
  ): { job: Job; answered: Promise<void> } {
    let answer: (handOverInMs: number | null) => void = () => undefined;
    const answered = new Promise<number | null>((resolve) => {
      answer = (a) => {
        answer = () => undefined;
        resolve(a);
      };
    }).then((waitMs) => {
      if (waitMs === null) return;
      const notBefore = waitMs > 0 ? { notBefore: Date.now() + Math.round(waitMs) } : {};
      return o.handOver({ ...d, ...notBefore }, trace);
    });
    const msg: JobMsg = {
      subject: event.subject,
      info: event.info,
      headers: event.headers,
      time: event.time,
      working: () => event.working(),
      ack: () => answer(null),
      term: () => answer(null),
      nak: (delayMs) => answer(delayMs ?? 0),
    };
    return { job: newJob(msg, d, true), answered };
  }

  async function offer(d: WebhookDelivery, event: JsMsg, trace: TraceContext): Promise<boolean> {
    if (stopping || queue.isFull(state, limits)) return false;
    const { job, answered } = eventJob(d, event, trace);
    const back = queue.admit(state, limits, job, performance.now());
    if (back) sendBack(back);
    else pump();
    await answered;
    return true;
  }

  function pump(): void {
    if (stopping) return;
    const now = Date.now();
    for (const job of queue.takeRunnable(state, limits, now)) start(job);
    const next = queue.nextWake(state, now);
    if (timer) clearTimeout(timer);
    timer = next === null ? null : setTimeout(pump, next - now);
  }

  // Jobs held in memory are still unacknowledged: keep the server from redelivering them elsewhere.
  // Running ones too, though both consumers' ack wait outlasts an attempt: it costs nothing more.
  const keepAlive = setInterval(
    () => {
      for (const j of queue.heldJobs(state)) quietly(() => j.msg.working());
    },
    Math.max(1_000, o.ackWaitMs / 3),
  );

  const trimmer = setInterval(() => {
    const back = queue.tick(state, limits, performance.now());
    for (const b of back) sendBack(b);
    if (back.length > 0) signalRoom();
  }, queue.TRIM_EVERY_MS);

  const messages = await o.consumer.consume({ max_messages: o.concurrency });
  const loop = (async () => {
    for await (const msg of messages) {
      while (queue.isFull(state, limits) && !stopping) await new Promise<void>((r) => (roomWaiter = r));
      if (stopping) {
        quietly(() => msg.nak());
        continue;
      }
      const job = jobOf(msg);
      if (!job) continue;
      const back = queue.admit(state, limits, job, performance.now());
      if (back) sendBack(back);
      else pump();
    }
  })().catch((err) => o.log.error({ err }, "delivery queue consumer ended"));

  return {
    offer,
    async stop() {
      stopping = true;
      signalRoom();
      clearInterval(keepAlive);
      clearInterval(trimmer);
      if (timer) clearTimeout(timer);
      await messages.close();
      await loop;
      // Queued jobs go straight back to the stream for another replica; running attempts finish.
      for (const j of queue.drain(state)) quietly(() => j.msg.nak());
      await Promise.allSettled([...running]);
    },
  };
}
