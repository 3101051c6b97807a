import { createUser, fromPublic } from "@nats-io/nkeys";
import { Commands, Events, signedContent } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { loadSodium, nodeEd25519, sodiumEd25519 } from "./ed25519.ts";
import { createMessageSigning, messageSigningFor } from "./message-signing.ts";

const user = () => {
  const kp = createUser();
  return { seed: new TextDecoder().decode(kp.getSeed()), publicKey: kp.getPublicKey() };
};
const banking = user();
const orders = user();
const body = new TextEncoder().encode('{"ref":"o1","fiatAmount":"100"}');
const deposit = Events.fiatDepositReceived.subject;

describe("stream message signatures", () => {
  const signer = createMessageSigning(banking.seed, {});
  const checker = createMessageSigning(orders.seed, { banking: banking.publicKey, orders: orders.publicKey });

  it("takes what the subject's publisher signed, and the signature is the publisher's nkey signature", () => {
    const sig = signer.sign(deposit, "m1", body);
    expect(checker.refusal(deposit, "m1", body, sig)).toBeUndefined();
    const nkeySig = new Uint8Array(Buffer.from(sig, "base64"));
    expect(fromPublic(banking.publicKey).verify(signedContent(deposit, "m1", body), nkeySig)).toBe(true);
  });

  it("refuses the same bytes under another subject, message id or body, unsigned, or signed by another service", () => {
    const sig = signer.sign(deposit, "m1", body);
    expect(checker.refusal(Events.payoutResult.subject, "m1", body, sig)).toMatch(/not banking's/);
    expect(checker.refusal(deposit, "m2", body, sig)).toMatch(/not banking's/);
    expect(checker.refusal(deposit, "m1", new TextEncoder().encode("{}"), sig)).toMatch(/not banking's/);
    expect(checker.refusal(deposit, "m1", body, undefined)).toMatch(/not signed by banking/);
    const byOrders = createMessageSigning(orders.seed, {}).sign(deposit, "m1", body);
    expect(checker.refusal(deposit, "m1", body, byOrders)).toMatch(/not banking's/);
  });

  it("a publisher on libsodium and a consumer on node:crypto (or the other way round) take each other's messages", () => {
    const sodium = loadSodium();
    if (!sodium) throw new Error("sodium-native did not load");
    const peers = { banking: banking.publicKey, orders: orders.publicKey };
    for (const [sending, checking] of [
      [sodiumEd25519(sodium), nodeEd25519],
      [nodeEd25519, sodiumEd25519(sodium)],
    ] as const) {
      const sig = createMessageSigning(banking.seed, {}, sending).sign(deposit, "m1", body);
      const consumer = createMessageSigning(orders.seed, peers, checking);
      expect(consumer.refusal(deposit, "m1", body, sig)).toBeUndefined();
      expect(consumer.refusal(deposit, "m2", body, sig)).toMatch(/not banking's/);
    }
  });

  it("will not start a consumer without the public keys of the publishers it consumes from", () => {
    expect(() => messageSigningFor("orders", { NATS_NKEY_SEED: orders.seed })).toThrow(
      /NATS_PEER_KEYS has no public key for .*banking/,
    );
    const chainWatcher = user();
    const signing = messageSigningFor("chain-watcher", {
      NATS_NKEY_SEED: chainWatcher.seed,
      NATS_PEER_KEYS: `orders=${orders.publicKey}`,
    });
    const command = Commands.chainTransfer.subject;
    const sig = createMessageSigning(orders.seed, {}).sign(command, "t1", body);
    expect(signing?.refusal(command, "t1", body, sig)).toBeUndefined();
    expect(messageSigningFor("gateway", {})).toBeUndefined();
  });
});
