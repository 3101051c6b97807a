import { fromPublic, fromSeed } from "@nats-io/nkeys";
import {
  MESSAGING,
  type PeerKeys,
  parsePeerKeys,
  publisherOf,
  type ServiceName,
  signedContent,
} from "@ramp/contracts";
import { base32 } from "@scure/base";
import { type Ed25519, ed25519 } from "./ed25519.ts";

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

/** nkeys' key pairs hold the raw 32-byte seed (`getRawSeed`, present though its type leaves it out). */
type SeedPair = { getRawSeed(): Uint8Array };
const rawSeedOf = (seed: string): Uint8Array =>
  (fromSeed(new TextEncoder().encode(seed)) as unknown as SeedPair).getRawSeed();
/** A public nkey (`U…`, checked by nkeys) is base32 of a prefix byte, the 32-byte key and a checksum. */
function rawPublicKeyOf(nkey: string): Uint8Array {
  fromPublic(nkey);
  return base32.decode(nkey).subarray(1, 33);
}

// nkeys are ed25519 keys: signed and checked natively (ed25519.ts), since the nkeys package's own
// JavaScript ed25519 takes tens of milliseconds a signature, which a busy publisher cannot afford.
export function createMessageSigning(
  seed: string,
  peers: PeerKeys,
  curve: Ed25519 = ed25519,
): MessageSigning {
  const own = curve.signer(rawSeedOf(seed));
  const verifiers = new Map<string, ReturnType<Ed25519["verifier"]>>();
  const verifierOf = (service: ServiceName) => {
    const key = peers[service];
    if (!key) return undefined;
    let check = verifiers.get(key);
    if (!check) {
      check = curve.verifier(rawPublicKeyOf(key));
      verifiers.set(key, check);
    }
    return check;
  };
  return {
    sign: (subject, msgId, body) => toBase64(own(signedContent(subject, msgId, body))),
    refusal(subject, msgId, body, signature) {
      const publisher = publisherOf(subject);
      if (!publisher) return `no service publishes ${subject}`;
      if (!msgId || !signature) return `not signed by ${publisher}`;
      const check = verifierOf(publisher);
      if (!check) return `no public key for ${publisher} in NATS_PEER_KEYS`;
      const ok = check(signedContent(subject, msgId, body), Buffer.from(signature, "base64"));
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
