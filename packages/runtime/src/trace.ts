import { randomFillSync } from "node:crypto";
import { type MsgHdrs, headers as natsHeaders } from "@nats-io/transport-node";
import { TRACE_HEADERS } from "@ramp/contracts";

/** What travels with every request and message so logs of one flow can be joined across services. */
export interface TraceContext {
  requestId: string;
  traceparent: string;
  businessId?: string | undefined;
}

// Every HTTP request and every message without a trace takes 24 random bytes: read from the OS in
// batches, since one read per id was a visible share of the gateway's time per request.
const POOL = Buffer.alloc(24 * 256);
let poolAt = POOL.length;
function randomHex(bytes: number): string {
  if (poolAt + bytes > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const hex = POOL.toString("hex", poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}

export function newTraceContext(requestId?: string, businessId?: string): TraceContext {
  const traceId = randomHex(16);
  const spanId = randomHex(8);
  return { requestId: requestId ?? traceId, traceparent: `00-${traceId}-${spanId}-01`, businessId };
}

export function toHeaders(ctx: TraceContext | undefined, into: MsgHdrs = natsHeaders()): MsgHdrs {
  if (!ctx) return into;
  into.set(TRACE_HEADERS.requestId, ctx.requestId);
  into.set(TRACE_HEADERS.traceparent, ctx.traceparent);
  if (ctx.businessId) into.set(TRACE_HEADERS.businessId, ctx.businessId);
  return into;
}

/** The trace a message carries, or undefined when it carries none (it starts a trace of its own). */
export function readTrace(h: MsgHdrs | undefined): TraceContext | undefined {
  const requestId = h?.get(TRACE_HEADERS.requestId);
  const traceparent = h?.get(TRACE_HEADERS.traceparent);
  if (!requestId || !traceparent) return undefined;
  const businessId = h?.get(TRACE_HEADERS.businessId) || undefined;
  return { requestId, traceparent, businessId };
}

/** The requestId header alone, for a message that carries one without a traceparent. */
export function readRequestId(h: MsgHdrs | undefined): string | undefined {
  return h?.get(TRACE_HEADERS.requestId) || undefined;
}

export function fromHeaders(h: MsgHdrs | undefined): TraceContext {
  return readTrace(h) ?? newTraceContext(readRequestId(h));
}
