import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { ConsumerLag } from "./consumer-lag.ts";
import { HotCounter, HotHistogram } from "./hot-metrics.ts";

/**
 * One Prometheus registry per process. Services started in-process (tests) share it, which is why
 * every metric carries the `service` label rather than relying on one process per service. What every
 * request or message counts is a hot metric (`hot-metrics.ts`), exposed as prom-client's own would be.
 */
export const metrics = new Registry();
collectDefaultMetrics({ register: metrics });

export const rpcRequests = new HotCounter({
  name: "ramp_rpc_requests_total",
  help: "Request/reply calls answered, by subject and outcome code",
  labelNames: ["service", "subject", "outcome"] as const,
  registers: [metrics],
});

export const rpcDuration = new HotHistogram({
  name: "ramp_rpc_duration_seconds",
  help: "Time to answer a request/reply call",
  labelNames: ["service", "subject"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metrics],
});

export const messagesHandled = new HotCounter({
  name: "ramp_messages_total",
  help: "JetStream messages handled, by subject and outcome (ack, retry, term, refused: not signed by its publisher)",
  labelNames: ["service", "subject", "outcome"] as const,
  registers: [metrics],
});

export const httpRequests = new HotCounter({
  name: "ramp_http_requests_total",
  help: "HTTP requests served by the gateway",
  labelNames: ["method", "route", "status"] as const,
  registers: [metrics],
});

export const httpDuration = new HotHistogram({
  name: "ramp_http_request_duration_seconds",
  help: "HTTP request latency at the gateway",
  labelNames: ["method", "route"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metrics],
});

export const webhookAttempts = new HotCounter({
  name: "ramp_webhook_attempts_total",
  help: "Webhook delivery attempts, by outcome (delivered, failed) and HTTP status class",
  labelNames: ["outcome", "status"] as const,
  registers: [metrics],
});

export const webhookDuration = new HotHistogram({
  name: "ramp_webhook_attempt_duration_seconds",
  help: "Time a receiver took to answer a webhook delivery",
  labelNames: [],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [metrics],
});

/**
 * Each chain's treasury holdings as chain-watcher last read them, by asset symbol (the native coin and
 * the stablecoin). A Prometheus sample is a float: fine for a dashboard and an alert threshold, never
 * used for accounting (the console's treasury answer carries the exact decimal).
 */
export const treasuryBalance = new Gauge({
  name: "ramp_treasury_balance",
  help: "Treasury balance per chain and asset, in token units",
  labelNames: ["chain", "asset"] as const,
  registers: [metrics],
});

interface ExposedLag {
  labels: { service: string; subject: string };
  lag: ConsumerLag;
}
const exposedLags = new Set<ExposedLag>();

/**
 * How far behind each JetStream consumer is (`consumer-lag.ts`), read when scraped. Replicas started in
 * one process (tests) that consume the same subject show as one series, the furthest behind.
 */
export const consumerLagSeconds = new Gauge({
  name: "ramp_consumer_lag_seconds",
  help: "Age of the newest message each JetStream consumer started on: how long its messages wait (0 when keeping up or idle)",
  labelNames: ["service", "subject"] as const,
  registers: [metrics],
  collect() {
    this.reset();
    const furthest = new Map<string, { labels: ExposedLag["labels"]; seconds: number }>();
    for (const { labels, lag } of exposedLags) {
      const key = `${labels.service}\n${labels.subject}`;
      const seconds = lag.ms() / 1000;
      if ((furthest.get(key)?.seconds ?? -1) < seconds) furthest.set(key, { labels, seconds });
    }
    for (const { labels, seconds } of furthest.values()) this.set(labels, seconds);
  },
});

/** Shows a consumer's lag in `ramp_consumer_lag_seconds` until the returned function is called (its stop). */
export function exposeConsumerLag(labels: ExposedLag["labels"], lag: ConsumerLag): () => void {
  const exposed = { labels, lag };
  exposedLags.add(exposed);
  return () => exposedLags.delete(exposed);
}
