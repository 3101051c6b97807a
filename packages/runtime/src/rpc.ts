import {
  type Msg,
  type NatsConnection,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from "@nats-io/transport-node";
import { AppError, formatIssues, type RpcContract, RpcReply, requestingService } from "@ramp/contracts";
import type { z } from "zod";
import { type Logger, lazyLogger } from "./logger.ts";
import { rpcDuration, rpcRequests } from "./metrics.ts";
import { requestWhenConnected } from "./reconnect-aware-request.ts";
import { readRequestId, readTrace, type TraceContext, toHeaders } from "./trace.ts";
import { inSpan, SpanKind, SpanStatusCode, traceIdOf } from "./tracing.ts";

export const RPC_TIMEOUT_MS = 10_000;

export interface RpcHandlerContext {
  trace: TraceContext;
  log: Logger;
}

export type RpcHandler<C extends RpcContract> = (
  request: z.infer<C["request"]>,
  ctx: RpcHandlerContext,
) => Promise<z.input<C["response"]>>;

function encode(reply: RpcReply): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(reply));
}

/**
 * Answers one request/reply subject in a queue group so N instances share the load; or, given
 * `instance` (a concrete subject of a contract ending in `*`), answers it alone, for state that
 * lives in this process (an open export's cursor).
 * Each side validates what it receives, once: here the request (a bad one is a VALIDATION reply), in
 * callRpc the answer. The handler's answer is typed by the contract and goes out as it is, unparsed.
 * Domain AppErrors travel as error replies; anything else becomes INTERNAL without leaking its message.
 * A message that cannot have come from a service allowed to call the subject (see `requestingService`:
 * what nats-server delivered on another's behalf, from a push consumer or a JetStream API reply) is
 * dropped unanswered, logged and counted as REFUSED.
 */
export function serveRpc<C extends RpcContract>(
  nc: NatsConnection,
  contract: C,
  queue: string,
  log: Logger,
  handler: RpcHandler<C>,
  instance?: string,
): { stop(): Promise<void> } {
  const sub = instance ? nc.subscribe(instance) : nc.subscribe(contract.subject, { queue });
  const inflight = new Set<Promise<void>>();
  const attributes = { "rpc.system": "nats", "rpc.method": contract.subject };
  const handle = (msg: Msg) =>
    inSpan(
      contract.subject,
      {
        kind: SpanKind.SERVER,
        parent: readTrace(msg.headers),
        requestId: readRequestId(msg.headers),
        attributes,
      },
      async (trace, span) => {
        // Made only if the handler logs, as a consumer's is: pino's child() serialises and redacts its
        // bindings (about 6 µs), and most calls never write a line.
        const child = lazyLogger(log, () => ({
          requestId: trace.requestId,
          traceId: traceIdOf(trace),
          subject: contract.subject,
        }));
        const timer = rpcDuration.startTimer({ service: queue, subject: contract.subject });
        let reply: RpcReply;
        try {
          const raw: unknown = JSON.parse(new TextDecoder().decode(msg.data));
          const parsed = contract.request.safeParse(raw);
          if (!parsed.success) throw new AppError("VALIDATION", formatIssues(parsed.error.issues));
          const data = await handler(parsed.data as z.infer<C["request"]>, { trace, log: child });
          reply = { ok: true, data };
        } catch (err) {
          if (err instanceof AppError) {
            reply = { ok: false, error: { code: err.code, message: err.detail } };
          } else {
            child.error({ err }, "rpc handler failed");
            reply = { ok: false, error: { code: "INTERNAL", message: "Internal error" } };
          }
        }
        timer();
        const outcome = reply.ok ? "OK" : reply.error.code;
        rpcRequests.inc({ service: queue, subject: contract.subject, outcome });
        span.setAttribute("rpc.response.code", outcome);
        if (!reply.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
        msg.respond(encode(reply));
      },
    );
  const refuse = (msg: Msg) => {
    rpcRequests.inc({ service: queue, subject: contract.subject, outcome: "REFUSED" });
    log.warn(
      { subject: contract.subject, delivered: msg.subject, reply: msg.reply ?? null },
      "refused a message that no caller of this subject sent",
    );
  };
  const loop = (async () => {
    for await (const msg of sub) {
      if (!requestingService(contract.subject, msg.reply)) {
        refuse(msg);
        continue;
      }
      const p = handle(msg).finally(() => inflight.delete(p));
      inflight.add(p);
    }
  })();
  return {
    async stop() {
      await sub.drain();
      await loop;
      await Promise.allSettled([...inflight]);
    },
  };
}

/**
 * Calls a request/reply subject; no responder or a timeout is UNAVAILABLE (HTTP 503), never a hang.
 * The request is typed by the contract and validated by the server; the answer is validated here, so
 * nothing the server sends reaches the caller unchecked (and fields outside the contract are stripped).
 * `instance` is the concrete subject to call when the contract's subject ends in `*`.
 */
export async function callRpc<C extends RpcContract>(
  nc: NatsConnection,
  contract: C,
  request: z.input<C["request"]>,
  trace?: TraceContext,
  timeoutMs = RPC_TIMEOUT_MS,
  instance = contract.subject,
): Promise<z.infer<C["response"]>> {
  const payload = new TextEncoder().encode(JSON.stringify(request));
  const attributes = { "rpc.system": "nats", "rpc.method": contract.subject };
  const raw = await inSpan(
    contract.subject,
    { kind: SpanKind.CLIENT, parent: trace, attributes },
    async (t) => {
      try {
        const msg = await requestWhenConnected(nc, instance, payload, {
          timeout: timeoutMs,
          headers: toHeaders(t),
        });
        // A responder answers with a bare message (serveRpc sends no headers and no reply subject).
        // One with either was delivered by the server on someone else's behalf (a consumer delivery
        // carries a $JS.ACK reply; a reflected DIRECT.GET carries Nats-Stream headers): not an answer.
        if (msg.reply || msg.headers) {
          throw new AppError("UNAVAILABLE", `${contract.subject} answered with a message no responder sent`);
        }
        return JSON.parse(new TextDecoder().decode(msg.data)) as unknown;
      } catch (err) {
        if (err instanceof NoRespondersError || err instanceof TimeoutError || err instanceof RequestError) {
          throw new AppError("UNAVAILABLE", `${contract.subject} is unavailable`);
        }
        throw err;
      }
    },
  );
  const reply = RpcReply.safeParse(raw);
  if (!reply.success) throw new Error(`${contract.subject}: reply is not an RPC envelope`);
  if (!reply.data.ok) throw new AppError(reply.data.error.code, reply.data.error.message);
  const data = contract.response.safeParse(reply.data.data);
  if (!data.success) {
    throw new Error(
      `${contract.subject}: reply breaks the contract: ${formatIssues(data.error.issues).join("; ")}`,
    );
  }
  return data.data as z.infer<C["response"]>;
}
