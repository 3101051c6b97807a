import { inboxPrefix, MESSAGING, type ServiceName, type WorkQueueContract } from "./ownership.ts";
import { Rpc } from "./rpc.ts";
import { STREAMS } from "./streams.ts";

/** What nats-server lets one service's connection do; anything not allowed is refused by the server. */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /**
   * A service that answers requests may publish once to the reply subject of each request it received,
   * and to nothing else it was not granted: so it can answer without being able to publish to any inbox.
   */
  allowResponses: boolean;
}

const JS_API = "$JS.API";
const unique = (xs: string[]) => [...new Set(xs)];

/** The request subjects that exist only in the sandbox: a production server grants none of them. */
export const SANDBOX_RPCS = [Rpc.sandboxDeposit, Rpc.sandboxFiatDeposit, Rpc.sandboxChainDeposit] as const;
const SANDBOX_SUBJECTS: ReadonlySet<string> = new Set(SANDBOX_RPCS.map((c) => c.subject));

/** Whether a service publishes or consumes on the shared streams (gateway and pricing do neither). */
export const usesSharedStreams = (service: ServiceName): boolean =>
  MESSAGING[service].publishes.length > 0 || MESSAGING[service].consumes.length > 0;

/**
 * The JetStream API a service needs: account info (the client checks JetStream is there), stream info and
 * create for the two streams when it uses them (each such service creates them at start, so the order of
 * boot does not matter),
 * and, for its own durables only, consumer info, create (pinned to the consumer's filter subject), fetch
 * and ack. No purge, delete, update or listing: a service cannot remove messages or touch others' consumers.
 */
function jetStreamSubjects(service: ServiceName): string[] {
  const streams = (usesSharedStreams(service) ? Object.values(STREAMS) : []).flatMap((s) => [
    `${JS_API}.STREAM.INFO.${s.name}`,
    `${JS_API}.STREAM.CREATE.${s.name}`,
  ]);
  const consumers = MESSAGING[service].consumes.flatMap(({ contract: { stream, subject }, durable }) => [
    `${JS_API}.CONSUMER.INFO.${stream}.${durable}`,
    `${JS_API}.CONSUMER.CREATE.${stream}.${durable}.${subject}`,
    `${JS_API}.CONSUMER.MSG.NEXT.${stream}.${durable}`,
    `$JS.ACK.${stream}.${durable}.>`,
  ]);
  const own = MESSAGING[service];
  return [
    `${JS_API}.INFO`,
    ...streams,
    ...consumers,
    ...own.buckets.flatMap(bucketSubjects),
    ...own.follows.flatMap(({ bucket }) => followSubjects(bucket)),
    ...own.workQueues.flatMap(workQueueSubjects),
  ];
}

/**
 * A watch of another service's bucket: the ordered consumer it creates (and re-creates after a gap),
 * that consumer's info, and its flow-control replies. No stream create or info, no key get or put, no
 * consumer delete: it cannot write, remove or read past the changes announced.
 */
function followSubjects(bucket: string): string[] {
  const stream = `KV_${bucket}`;
  return [
    `${JS_API}.CONSUMER.CREATE.${stream}.>`,
    `${JS_API}.CONSUMER.INFO.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/** A work queue of the service's own: its stream, its one durable (created or updated), fetch and ack. */
function workQueueSubjects(q: WorkQueueContract): string[] {
  return [
    q.subject,
    `${JS_API}.STREAM.INFO.${q.stream}`,
    `${JS_API}.STREAM.CREATE.${q.stream}`,
    `${JS_API}.CONSUMER.INFO.${q.stream}.${q.durable}`,
    `${JS_API}.CONSUMER.CREATE.${q.stream}.${q.durable}`,
    `${JS_API}.CONSUMER.CREATE.${q.stream}.${q.durable}.${q.subject}`,
    `${JS_API}.CONSUMER.MSG.NEXT.${q.stream}.${q.durable}`,
    `$JS.ACK.${q.stream}.${q.durable}.>`,
  ];
}

/**
 * A KV bucket of the service's own: its stream's info and create, its keys, gets (direct or not), and the
 * ordered consumers a watch creates and resets (with their flow-control replies).
 */
function bucketSubjects(bucket: string): string[] {
  const stream = `KV_${bucket}`;
  return [
    `${JS_API}.STREAM.INFO.${stream}`,
    `${JS_API}.STREAM.CREATE.${stream}`,
    `${JS_API}.DIRECT.GET.${stream}.>`,
    `${JS_API}.STREAM.MSG.GET.${stream}`,
    `${JS_API}.CONSUMER.CREATE.${stream}.>`,
    `${JS_API}.CONSUMER.INFO.${stream}.>`,
    `${JS_API}.CONSUMER.DELETE.${stream}.>`,
    `$JS.FC.${stream}.>`,
    `$KV.${bucket}.>`,
  ];
}

/**
 * A service's NATS permissions, derived from what `MESSAGING` says it does (without the sandbox's request
 * subjects when `sandbox` is false, as in the production server configuration):
 * - publish: the request subjects it calls, the events/commands it owns (JetStream publishes are
 *   requests whose ack comes back to its inbox), its JetStream API subjects;
 * - subscribe: the request subjects it answers and its own reply inboxes, where request replies,
 *   JetStream acks and the messages of its pull consumers arrive.
 */
export function natsPermissions(service: ServiceName, opts: { sandbox?: boolean } = {}): NatsPermissions {
  const m = MESSAGING[service];
  const granted = (c: { subject: string }) => opts.sandbox !== false || !SANDBOX_SUBJECTS.has(c.subject);
  return {
    publish: {
      allow: unique([
        ...m.calls.filter(granted).map((c) => c.subject),
        ...m.publishes.map((c) => c.subject),
        ...jetStreamSubjects(service),
      ]),
    },
    subscribe: {
      allow: unique([...m.serves.filter(granted).map((c) => c.subject), `${inboxPrefix(service)}.>`]),
    },
    allowResponses: m.serves.length > 0,
  };
}
