import { describe, expect, it } from "vitest";
import { Consumers, inboxPrefix, MESSAGING, SERVICE_NAMES, type ServiceName } from "./ownership.ts";
import { natsPermissions } from "./permissions.ts";
import { Rpc } from "./rpc.ts";
import { Commands, Events } from "./streams.ts";

/** NATS subject matching: `*` is one token, a trailing `>` one or more. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split(".");
  const s = subject.split(".");
  for (let i = 0; i < p.length; i++) {
    if (p[i] === ">") return s.length > i;
    if (i >= s.length || (p[i] !== "*" && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
const mayPublish = (svc: ServiceName, subject: string) =>
  natsPermissions(svc).publish.allow.some((p) => matches(p, subject));
const maySubscribe = (svc: ServiceName, subject: string) =>
  natsPermissions(svc).subscribe.allow.some((p) => matches(p, subject));
const owners = (pred: (svc: ServiceName) => boolean) => SERVICE_NAMES.filter(pred);

describe("NATS permissions derived from contracts", () => {
  it("lets only a bucket's owner touch its keys and stream (the pricing change feed, chain-watcher's leases)", () => {
    for (const bucket of ["ramp_pricing_changes", "ramp_leases_chain_watcher"]) {
      const holders = owners((s) => mayPublish(s, `$KV.${bucket}.some-key`));
      expect(holders).toHaveLength(1);
      expect(owners((s) => mayPublish(s, `$JS.API.STREAM.CREATE.KV_${bucket}`))).toEqual(holders);
    }
    expect(mayPublish("banking", "$KV.ramp_pricing_changes.market-rate.NGN")).toBe(false);
  });

  it("lets the gateway watch pricing's change feed and nothing more: no key written, no stream made, no consumer deleted", () => {
    const stream = "KV_ramp_pricing_changes";
    expect(
      mayPublish("gateway", `$JS.API.CONSUMER.CREATE.${stream}.KV_WATCHER_abc.$KV.ramp_pricing_changes.>`),
    ).toBe(true);
    expect(mayPublish("gateway", "$KV.ramp_pricing_changes.market-rate.NGN")).toBe(false);
    expect(mayPublish("gateway", `$JS.API.STREAM.CREATE.${stream}`)).toBe(false);
    expect(mayPublish("gateway", `$JS.API.STREAM.PURGE.${stream}`)).toBe(false);
    expect(mayPublish("gateway", `$JS.API.CONSUMER.DELETE.${stream}.KV_WATCHER_abc`)).toBe(false);
    expect(mayPublish("gateway", `$JS.API.DIRECT.GET.${stream}.$KV.ramp_pricing_changes.profile.b1`)).toBe(
      false,
    );
    // A service follows only a feed that another service owns and writes.
    for (const svc of SERVICE_NAMES) {
      for (const { bucket, owner } of MESSAGING[svc].follows) {
        expect(owner).not.toBe(svc);
        expect(owners((s) => MESSAGING[s].buckets.includes(bucket))).toEqual([owner]);
      }
    }
  });

  it("only chain-watcher may publish a chain deposit; banking and everyone else are refused", () => {
    expect(owners((s) => mayPublish(s, Events.depositObserved.subject))).toEqual(["chain-watcher"]);
    expect(mayPublish("banking", Events.depositObserved.subject)).toBe(false);
  });

  it("gives every event and command exactly one publisher, and a publisher to everything consumed", () => {
    for (const c of [...Object.values(Events), ...Object.values(Commands)]) {
      expect(
        owners((s) => mayPublish(s, c.subject)),
        c.subject,
      ).toHaveLength(1);
    }
    for (const svc of SERVICE_NAMES) {
      for (const { contract } of MESSAGING[svc].consumes) {
        expect(
          owners((s) => MESSAGING[s].publishes.includes(contract)),
          contract.subject,
        ).toHaveLength(1);
      }
    }
  });

  it("gives every request/reply subject exactly one server, which nobody else may subscribe to", () => {
    for (const c of Object.values(Rpc)) {
      expect(
        owners((s) => maySubscribe(s, c.subject)),
        c.subject,
      ).toHaveLength(1);
      expect(
        owners((s) => MESSAGING[s].serves.includes(c)),
        c.subject,
      ).toHaveLength(1);
    }
    for (const svc of SERVICE_NAMES) {
      for (const c of MESSAGING[svc].calls) {
        expect(
          owners((s) => s !== svc && MESSAGING[s].serves.includes(c)),
          c.subject,
        ).toHaveLength(1);
      }
    }
  });

  it("lets a service read only its own reply inbox", () => {
    for (const svc of SERVICE_NAMES) {
      const inbox = `${inboxPrefix(svc)}.abc.1`;
      expect(owners((s) => maySubscribe(s, inbox))).toEqual([svc]);
      expect(maySubscribe(svc, "_INBOX.abc.1")).toBe(false);
    }
  });

  it("lets a service fetch and ack only its own durables", () => {
    const { contract, durable } = Consumers.ordersChainDeposits;
    const next = `$JS.API.CONSUMER.MSG.NEXT.${contract.stream}.${durable}`;
    const ack = `$JS.ACK.${contract.stream}.${durable}.1.5.5.1700000000.0`;
    expect(owners((s) => mayPublish(s, next))).toEqual(["orders"]);
    expect(owners((s) => mayPublish(s, ack))).toEqual(["orders"]);
    const durables = Object.values(Consumers).map((c) => c.durable);
    expect(new Set(durables).size).toBe(durables.length);
    for (const svc of SERVICE_NAMES) {
      for (const c of MESSAGING[svc].consumes) expect(c.durable.startsWith(`${svc}-`)).toBe(true);
    }
  });

  it("grants no JetStream administration beyond creating the streams and its own consumers", () => {
    for (const svc of SERVICE_NAMES) {
      for (const op of [
        "STREAM.PURGE",
        "STREAM.DELETE",
        "STREAM.UPDATE",
        "CONSUMER.DELETE",
        "STREAM.MSG.DELETE",
      ]) {
        expect(mayPublish(svc, `$JS.API.${op}.RAMP_EVENTS`), `${svc} ${op}`).toBe(false);
      }
      // Wildcards only under a service's own acks, its own KV buckets' streams and keys, the consumers
      // of the change feeds it follows, and the one token of a call answered by a single process (an
      // open export's chunks).
      const own = [
        ...MESSAGING[svc].buckets.flatMap((b) => [`KV_${b}.`, `$KV.${b}.`]),
        ...MESSAGING[svc].follows.map((f) => `KV_${f.bucket}.`),
      ];
      const instanceCalls = MESSAGING[svc].calls.map((c) => c.subject).filter((s) => s.endsWith(".*"));
      const wild = natsPermissions(svc).publish.allow.filter((p) => /[*>]/.test(p));
      expect(
        wild.every(
          (p) => p.startsWith("$JS.ACK.") || own.some((o) => p.includes(o)) || instanceCalls.includes(p),
        ),
      ).toBe(true);
    }
  });

  it("lets only services that answer requests publish replies", () => {
    expect(owners((s) => natsPermissions(s).allowResponses)).toEqual(
      SERVICE_NAMES.filter((s) => s !== "gateway"),
    );
  });
});
