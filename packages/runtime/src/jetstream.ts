import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  type PubAck,
  PubHeaders,
} from "@nats-io/jetstream";
import { type NatsConnection, nanos } from "@nats-io/transport-node";
import { SIGNATURE_HEADER, STREAMS, type StreamContract } from "@ramp/contracts";
import type { z } from "zod";
import { consumerLag } from "./consumer-lag.ts";
import { ensureDurable, lookUpOrCreate, retryJetStreamSetup } from "./jetstream-setup.ts";
import { type Logger, lazyChild } from "./logger.ts";
import { bindSigning, type MessageSigning, signingOf } from "./message-signing.ts";
import { exposeConsumerLag, messagesHandled } from "./metrics.ts";
import { readRequestId, readTrace, type TraceContext, toHeaders } from "./trace.ts";
import { inSpan, type Span, SpanKind, SpanStatusCode, traceIdOf } from "./tracing.ts";

export interface JetStreamHandles {
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/**
 * Creates (or keeps) the two streams; every service calls this at start-up, so order of boot does not
 * matter. `replicas` applies when a stream is created (3 on a NATS cluster). A cluster failing over
 * answers late or not at all for a few seconds: the whole step is tried again then (see
 * jetstream-setup.ts), so a replica booting meanwhile comes up by itself.
 */
export async function ensureStreams(
  nc: NatsConnection,
  replicas = 1,
  log?: Logger,
): Promise<JetStreamHandles> {
  return retryJetStreamSetup(
    "stream setup",
    async () => {
      const jsm = await jetstreamManager(nc);
      for (const s of Object.values(STREAMS)) {
        await lookUpOrCreate(
          () => jsm.streams.info(s.name),
          () =>
            jsm.streams.add({
              name: s.name,
              subjects: [...s.subjects],
              duplicate_window: nanos(24 * 3600 * 1000),
              num_replicas: replicas,
            }),
        );
      }
      const js = jetstream(nc);
      bindSigning(js, signingOf(nc));
      return { js, jsm };
    },
    { log },
  );
}

/** Publishes a validated payload; `msgId` makes a re-publish after a crash a no-op (dedupe window). */
export async function publish<C extends StreamContract>(
  js: JetStreamClient,
  contract: C,
  payload: z.input<C["payload"]>,
  msgId: string,
  trace?: TraceContext,
): Promise<{ duplicate: boolean }> {
  const body = new TextEncoder().encode(JSON.stringify(contract.payload.parse(payload)));
  const ack = await publishTraced(js, contract.subject, body, msgId, trace);
  return { duplicate: ack.duplicate };
}

/**
 * Publishes bytes inside a producer span whose traceparent travels in the headers, so the consumer's
 * span continues it, signed by this service when its connection has a signing (see message-signing.ts).
 * For payloads already validated; `publish` is the typed entry point.
 */
export function publishTraced(
  js: JetStreamClient,
  subject: string,
  body: Uint8Array,
  msgId: string,
  trace: TraceContext | undefined,
): Promise<PubAck> {
  const attributes = {
    "messaging.system": "nats",
    "messaging.operation.type": "send",
    "messaging.destination.name": subject,
    "messaging.message.id": msgId,
  };
  const signing = signingOf(js);
  return inSpan(`send ${subject}`, { kind: SpanKind.PRODUCER, parent: trace, attributes }, (t) => {
    const headers = toHeaders(t);
    if (signing) headers.set(SIGNATURE_HEADER, signing.sign(subject, msgId, body));
    return js.publish(subject, body, { msgID: msgId, headers });
  });
}

/**
 * Runs the handling of one JetStream message in a consumer span continuing the trace the message
 * carries (a message without one starts a trace), handing the handler that span's context.
 */
export function inConsumerSpan<T>(
  msg: Pick<JsMsg, "subject" | "info" | "headers">,
  fn: (trace: TraceContext, span: Span) => Promise<T>,
): Promise<T> {
  const attributes = {
    "messaging.system": "nats",
    "messaging.operation.type": "process",
    "messaging.destination.name": msg.subject,
    "messaging.nats.delivery_count": msg.info.deliveryCount,
  };
  return inSpan(
    `process ${msg.subject}`,
    {
      kind: SpanKind.CONSUMER,
      parent: readTrace(msg.headers),
      requestId: readRequestId(msg.headers),
      attributes,
    },
    fn,
  );
}

/**
 * Why a consumed message is not taken, or undefined: with a signing, only what the subject's publisher
 * signed is taken. A connection without one (no nkey, so no server of this project's) takes everything.
 */
export function unsignedRefusal(signing: MessageSigning | undefined, msg: JsMsg): string | undefined {
  return signing?.refusal(
    msg.subject,
    msg.headers?.get(PubHeaders.MsgIdHdr),
    msg.data,
    msg.headers?.get(SIGNATURE_HEADER),
  );
}

/** Thrown by a handler when a message can never succeed: the message is terminated, not retried. */
export class PermanentFailure extends Error {
  override name = "PermanentFailure";
}

export interface ConsumerOptions<C extends StreamContract> {
  contract: C;
  durable: string;
  log: Logger;
  handler: (
    payload: z.infer<C["payload"]>,
    ctx: { trace: TraceContext; log: Logger; msg: JsMsg },
  ) => Promise<void>;
  /** Parallel handlers, so one slow item never stalls the ones behind it. */
  concurrency?: number;
  maxDeliver?: number;
  /** Redelivery delays in ms, by attempt; the last repeats. */
  retryDelaysMs?: number[];
  /**
   * How long a message may go unacknowledged before it is delivered again (default 60 s). An existing
   * durable takes this value when it differs, so a crashed handler's messages come back this soon.
   */
  ackWaitMs?: number;
}

export interface RunningConsumer {
  stop(): Promise<void>;
  /** How far behind the consumer is, in milliseconds (`consumer-lag.ts`): 0 when keeping up or idle. */
  lagMs(): number;
}

const DEFAULT_RETRY_MS = [500, 2_000, 10_000, 30_000, 60_000];

/** A durable, explicit-ack consumer of one subject that validates every payload before the handler sees it. */
export async function consume<C extends StreamContract>(
  nc: NatsConnection,
  opts: ConsumerOptions<C>,
): Promise<RunningConsumer> {
  const { jsm, js } = await ensureStreams(nc, 1, opts.log);
  const maxDeliver = opts.maxDeliver ?? 50;
  const config = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: opts.contract.subject,
    max_deliver: maxDeliver,
    ack_wait: nanos(opts.ackWaitMs ?? 60_000),
    max_ack_pending: 1_000,
  };
  const consumer = await retryJetStreamSetup(
    `consumer ${opts.durable}`,
    async () => {
      await ensureDurable(jsm, opts.contract.stream, config, ["ack_wait"]);
      return js.consumers.get(opts.contract.stream, opts.durable);
    },
    { log: opts.log },
  );
  const concurrency = opts.concurrency ?? 16;
  const delays = opts.retryDelaysMs ?? DEFAULT_RETRY_MS;
  const messages = await consumer.consume({ max_messages: concurrency * 2 });
  const inflight = new Set<Promise<void>>();

  const service = String(opts.log.bindings().service ?? "unknown");
  const signing = signingOf(nc);
  const count = (outcome: "ack" | "retry" | "term" | "refused") =>
    messagesHandled.inc({ service, subject: opts.contract.subject, outcome });
  const handleOne = (msg: JsMsg) =>
    inConsumerSpan(msg, async (trace, span) => {
      const logger = lazyChild(opts.log, () => ({
        requestId: trace.requestId,
        traceId: traceIdOf(trace),
        subject: msg.subject,
        seq: msg.seq,
      }));
      const failed = (why: string) => span.setStatus({ code: SpanStatusCode.ERROR, message: why });
      const refused = unsignedRefusal(signing, msg);
      if (refused) {
        logger().error({ refused }, "message not signed by its publisher; terminated");
        msg.term("not signed by its publisher");
        count("refused");
        failed("unsigned");
        return;
      }
      let payload: z.infer<C["payload"]>;
      try {
        payload = opts.contract.payload.parse(msg.json()) as z.infer<C["payload"]>;
      } catch (err) {
        logger().error({ err }, "message does not match its contract; terminated");
        msg.term("invalid payload");
        count("term");
        failed("invalid payload");
        return;
      }
      try {
        await opts.handler(payload, {
          trace,
          msg,
          get log() {
            return logger();
          },
        });
        msg.ack();
        count("ack");
      } catch (err) {
        span.recordException(err instanceof Error ? err : String(err));
        if (err instanceof PermanentFailure) {
          logger().error({ err: err.message }, "message failed permanently; terminated");
          msg.term(err.message);
          count("term");
          failed("terminated");
          return;
        }
        const attempt = msg.info.deliveryCount;
        const delay = delays[Math.min(attempt - 1, delays.length - 1)] ?? 1_000;
        const last = attempt >= maxDeliver;
        logger()[last ? "error" : "warn"](
          { err, attempt, delay },
          last ? "message dead-lettered" : "message will be retried",
        );
        msg.nak(delay);
        count("retry");
        failed(last ? "dead-lettered" : "retried");
      }
    });

  const lag = consumerLag();
  const unexposeLag = exposeConsumerLag({ service, subject: opts.contract.subject }, lag);
  const loop = (async () => {
    for await (const msg of messages) {
      while (inflight.size >= concurrency) await Promise.race(inflight);
      if (msg.info.deliveryCount === 1) lag.started(Number(msg.info.timestampNanos) / 1e6);
      const p = handleOne(msg).finally(() => {
        inflight.delete(p);
        // Nothing in flight means nothing was waiting either: the loop starts a held message at once.
        if (inflight.size === 0) lag.caughtUp();
      });
      inflight.add(p);
    }
  })();

  return {
    async stop() {
      unexposeLag();
      await messages.close();
      await loop;
      await Promise.allSettled([...inflight]);
    },
    lagMs: () => lag.ms(),
  };
}
