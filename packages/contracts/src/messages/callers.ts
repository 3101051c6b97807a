import { inboxPrefix, MESSAGING, SERVICE_NAMES, type ServiceName } from "./ownership.ts";

/**
 * Who may ask what: for each request/reply subject, the services whose `calls` name it.
 *
 * nats-server checks who *publishes* a request, but not what it delivers on a client's behalf: a push
 * consumer's `deliver_subject`, and the reply subject of any JetStream API request (DIRECT.GET answers with
 * the stored message, raw), are subjects the server publishes to without checking them against the
 * requester's permissions (nats-server `consumer.go` checkConsumerCfg validates the deliver subject's form
 * only; `jetstream_api.go` answers to `msg.reply` as given). So a service allowed to write its own KV bucket
 * could have the server carry those bytes onto another service's request subject.
 *
 * What the server does guarantee: a service receives replies only on its own inbox prefix (its subscribe
 * permission), and every message the server itself delivers carries either no reply subject or a `$JS.`
 * one (a consumer's ack subject). So a request whose reply subject is one of the allowed callers' inboxes
 * was published by a connection that may publish to that subject: a caller. Everything else is refused.
 */
const CALLERS: ReadonlyMap<string, readonly ServiceName[]> = (() => {
  const callers = new Map<string, ServiceName[]>();
  for (const svc of SERVICE_NAMES) {
    for (const { subject } of MESSAGING[svc].calls)
      callers.set(subject, [...(callers.get(subject) ?? []), svc]);
  }
  return callers;
})();

/** The services that may call a request/reply subject (empty for a subject nobody calls). */
export const callersOf = (subject: string): readonly ServiceName[] => CALLERS.get(subject) ?? [];

/**
 * The caller a request came from, judged by its reply subject (see above), or undefined when it cannot have
 * come from any service allowed to call `subject`.
 */
export function requestingService(subject: string, reply: string | undefined): ServiceName | undefined {
  if (!reply) return undefined;
  return callersOf(subject).find((svc) => reply.startsWith(`${inboxPrefix(svc)}.`));
}
