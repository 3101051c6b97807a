import type { NatsConnection } from "@nats-io/transport-node";
import { Consumers, type ExceptionSignal } from "@ramp/contracts";
import { consume, type Logger, type RunningConsumer } from "@ramp/runtime";
import type { ExceptionsStore } from "./exceptions-store.ts";

/** Applies a raise or clear another service published; keyed, so a redelivery changes nothing. */
export async function applySignal(exceptions: ExceptionsStore, signal: ExceptionSignal): Promise<void> {
  if (signal.action === "clear") return exceptions.clear(signal.key, signal.note);
  const { action: _, since, ...raised } = signal;
  await exceptions.raise({ ...raised, since: new Date(since) });
}

/**
 * The queue's inbox from the services that see what orders cannot (an endpoint failing, a treasury
 * running low). One message at a time per source: a clear must never be applied before its raise.
 */
export async function consumeRaisedExceptions(
  nc: NatsConnection,
  exceptions: ExceptionsStore,
  log: Logger,
): Promise<RunningConsumer[]> {
  const handler = (signal: ExceptionSignal) => applySignal(exceptions, signal);
  return [
    await consume(nc, { ...Consumers.ordersWebhookExceptions, log, concurrency: 1, handler }),
    await consume(nc, { ...Consumers.ordersChainExceptions, log, concurrency: 1, handler }),
  ];
}
