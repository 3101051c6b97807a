import { MESSAGING, SERVICE_NAMES, type ServiceName } from "./ownership.ts";

/**
 * Stream messages carry their publisher's signature.
 *
 * nats-server stores in a stream whatever is published on its subjects inside the account, including
 * what the server publishes itself on a client's behalf: the answer to a JetStream API request goes to
 * the reply subject the requester chose, unchecked (a DIRECT.GET answers with the raw bytes the requester
 * stored in its own KV bucket). Permissions cannot refuse that, so a service able to write its own bucket
 * could have a "fiat deposit" stored on banking's subject. Each publisher therefore signs what it
 * publishes with its NATS nkey (ed25519), and a consumer takes a message only when the subject's one
 * publisher (below) signed exactly that subject, message id and body.
 */
export const SIGNATURE_HEADER = "Ramp-Signature";

/** The bytes a signature covers: the subject and message id bind the body to where and what it was sent as. */
export function signedContent(subject: string, msgId: string, body: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`${subject}\n${msgId}\n`);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

const PUBLISHERS: ReadonlyMap<string, ServiceName> = (() => {
  const publishers = new Map<string, ServiceName>();
  for (const svc of SERVICE_NAMES) {
    for (const { subject } of MESSAGING[svc].publishes) publishers.set(subject, svc);
    for (const { subject } of MESSAGING[svc].workQueues) publishers.set(subject, svc);
  }
  return publishers;
})();

/** The one service that publishes a stream subject (events, commands, its own work queues). */
export const publisherOf = (subject: string): ServiceName | undefined => PUBLISHERS.get(subject);

/** `NATS_PEER_KEYS`: every service's public nkey (not secret), `gateway=U…,orders=U…`. */
export type PeerKeys = Partial<Record<ServiceName, string>>;

export const formatPeerKeys = (keys: PeerKeys): string =>
  Object.entries(keys)
    .filter(([, key]) => Boolean(key))
    .map(([svc, key]) => `${svc}=${key}`)
    .join(",");

export function parsePeerKeys(text: string): PeerKeys {
  const keys: PeerKeys = {};
  for (const part of text.split(",")) {
    const [service, key] = part.trim().split("=");
    if (service && key && (SERVICE_NAMES as readonly string[]).includes(service))
      keys[service as ServiceName] = key;
  }
  return keys;
}
