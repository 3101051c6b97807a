import {
  type Attributes,
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  trace as otel,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { parseTraceParent } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { BaseConfig } from "./config.ts";
import { newTraceContext, type TraceContext } from "./trace.ts";

export { type Span, SpanKind, SpanStatusCode };

/** The variables of BaseConfig that switch tracing on and shape it. */
export type TracingConfig = Pick<
  BaseConfig,
  "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_SERVICE_NAME" | "OTEL_BSP_SCHEDULE_DELAY"
>;

// One provider per process, shared when several services run in one process (as the in-process test
// stack does); it is shut down, flushing its last spans, when the last of them stops.
let shared: { provider: TracerProvider; tracer: Tracer; users: number } | undefined;

const NO_SPAN: Span = otel.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** True while a tracer provider of ours is registered: spans are made and exported. */
export function tracingOn(): boolean {
  return shared !== undefined;
}

/**
 * Registers an OTLP/HTTP (JSON) exporting tracer provider when OTEL_EXPORTER_OTLP_ENDPOINT is set;
 * otherwise nothing is registered and every span helper below takes its no-op path.
 * The returned stop() flushes what is still batched: call it after the last span has ended.
 */
export function startTracing(service: string, config: TracingConfig): { stop(): Promise<void> } {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return { stop: async () => undefined };
  if (!shared) {
    const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` });
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME ?? service }),
      spanProcessors: [
        new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY }),
      ],
    });
    // Parents inside a process (a webhook POST under its consumer span) follow async calls.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    otel.setGlobalTracerProvider(provider);
    // The provider's own tracer, not the api's proxy: a proxy keeps its first delegate for good.
    shared = { provider, tracer: provider.getTracer("@ramp/runtime"), users: 0 };
  }
  const mine = shared;
  mine.users++;
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      if (--mine.users > 0) return;
      if (shared === mine) shared = undefined;
      await mine.provider.shutdown();
      otel.disable();
      context.disable();
    },
  };
}

/** The W3C traceparent of a span: `00-<trace id>-<span id>-<flags>`. */
function traceparentOf(span: Span): string | undefined {
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, "0")}`;
}

/** The context a new span continues: the span a TraceContext names, else whatever is active here. */
function parentContext(parent: TraceContext | undefined): Context {
  if (!parent) return context.active();
  const sc = parseTraceParent(parent.traceparent);
  return sc ? otel.setSpanContext(ROOT_CONTEXT, { ...sc, isRemote: true }) : context.active();
}

export interface SpanOptions {
  kind: SpanKind;
  /** The trace this span continues (from a message's headers, an outbox entry, a handler); else the active one. */
  parent?: TraceContext | undefined;
  /** The requestId of a span that starts a trace (parent absent); default its trace id. */
  requestId?: string | undefined;
  attributes?: Attributes;
}

/**
 * Runs `fn` inside a new span and hands it the TraceContext naming that span, so whatever `fn` sends
 * or stores (a request, a message, an outbox entry) continues this span. An exception marks the span
 * failed and goes on. With tracing off no span exists: `fn` gets the parent's context unchanged.
 */
export async function inSpan<T>(
  name: string,
  opts: SpanOptions,
  fn: (trace: TraceContext, span: Span) => Promise<T>,
): Promise<T> {
  if (!shared) return fn(opts.parent ?? newTraceContext(opts.requestId), NO_SPAN);
  const parentCtx = parentContext(opts.parent);
  const span = shared.tracer.startSpan(
    name,
    { kind: opts.kind, attributes: opts.attributes ?? {} },
    parentCtx,
  );
  const traceparent = traceparentOf(span);
  const trace: TraceContext = traceparent
    ? {
        requestId: opts.parent?.requestId ?? opts.requestId ?? span.spanContext().traceId,
        traceparent,
        businessId: opts.parent?.businessId,
      }
    : (opts.parent ?? newTraceContext(opts.requestId));
  try {
    return await context.with(otel.setSpan(parentCtx, span), () => fn(trace, span));
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : undefined });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A TraceContext for work that has no trace handed to it: it continues the active span when there is
 * one (the sandbox request that caused a deposit), else it starts a trace under `requestId`.
 */
export function currentTrace(requestId: string): TraceContext {
  const traceparent = shared ? traceparentOf(otel.getActiveSpan() ?? NO_SPAN) : undefined;
  return traceparent ? { requestId, traceparent } : newTraceContext(requestId);
}

/** The trace a W3C `traceparent` header names, when it is a valid one; its requestId defaults to the trace id. */
export function traceFromHeader(
  traceparent: string | undefined,
  requestId: string | undefined,
): TraceContext | undefined {
  const sc = traceparent ? parseTraceParent(traceparent) : null;
  if (!traceparent || !sc || !isSpanContextValid(sc)) return undefined;
  return { requestId: requestId ?? sc.traceId, traceparent };
}

/** The trace id of a TraceContext, for log lines: the id a tracing backend finds the flow by. */
export function traceIdOf(trace: TraceContext): string {
  return trace.traceparent.slice(3, 35);
}
