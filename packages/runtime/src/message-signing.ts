import { fromPublic, fromSeed, type KeyPair } from "@nats-io/nkeys";
import {
  MESSAGING,
  type PeerKeys,
  parsePeerKeys,
  publisherOf,
  type ServiceName,
  signedContent,
} from "@ramp/contracts";

/**
 * Signs what this service publishes on streams and checks what it consumes (see contracts' signing.ts
 * for why the server's permissions alone cannot vouch for a stored message's publisher).
 */
export interface MessageSigning {
  /** The signature header value for one message this service publishes. */
  sign(subject: string, msgId: string, body: Uint8Array): string;
  /** Why a consumed message is refused, or undefined when its subject's publisher signed exactly it. */
  refusal(
    subject: string,
    msgId: string | undefined,
    body: Uint8Array,
    signature: string | undefined,
  ): string | undefined;
}

const toBase64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

export function createMessageSigning(seed: string, peers: PeerKeys): MessageSigning {
  const own = fromSeed(new TextEncoder().encode(seed));
  const verifiers = new Map<string, KeyPair>();
  const verifierOf = (service: ServiceName): KeyPair | undefined => {
    const key = peers[service];
    if (!key) return undefined;
    let kp = verifiers.get(key);
    if (!kp) {
      kp = fromPublic(key);
      verifiers.set(key, kp);
    }
    return kp;
  };
  return {
    sign: (subject, msgId, body) => toBase64(own.sign(signedContent(subject, msgId, body))),
    refusal(subject, msgId, body, signature) {
      const publisher = publisherOf(subject);
      if (!publisher) return `no service publishes ${subject}`;
      if (!msgId || !signature) return `not signed by ${publisher}`;
      const verifier = verifierOf(publisher);
      if (!verifier) return `no public key for ${publisher} in NATS_PEER_KEYS`;
      const ok = verifier.verify(signedContent(subject, msgId, body), Buffer.from(signature, "base64"));
      return ok ? undefined : `signature is not ${publisher}'s`;
    },
  };
}

/**
 * A service's signing from its configuration: none without an nkey seed (no server of this project's
 * lets such a connection in); with one, the public key of every publisher it consumes from is required,
 * so a missing one stops the start instead of refusing every message later. Its own key it derives.
 */
export function messageSigningFor(
  service: ServiceName,
  config: { NATS_NKEY_SEED?: string | undefined; NATS_PEER_KEYS?: string | undefined },
): MessageSigning | undefined {
  const seed = config.NATS_NKEY_SEED;
  if (!seed) return undefined;
  const own = fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  const peers: PeerKeys = { ...parsePeerKeys(config.NATS_PEER_KEYS ?? ""), [service]: own };
  const m = MESSAGING[service];
  const needed = new Set(
    [...m.consumes.map((c) => c.contract.subject), ...m.workQueues.map((q) => q.subject)].map(publisherOf),
  );
  const missing = [...needed].filter((p): p is ServiceName => p !== undefined && !peers[p]);
  if (missing.length > 0) {
    throw new Error(
      `NATS_PEER_KEYS has no public key for ${missing.join(", ")} (npm run nats:keys prints them)`,
    );
  }
  return createMessageSigning(seed, peers);
}

/**
 * The signing of a connection (and of the JetStream clients made from it). Several services share one
 * process in tests, so it travels with the connection rather than living in a module variable.
 */
const bound = new WeakMap<object, MessageSigning>();
export const bindSigning = (handle: object, signing: MessageSigning | undefined) => {
  if (signing) bound.set(handle, signing);
};
export const signingOf = (handle: object): MessageSigning | undefined => bound.get(handle);
