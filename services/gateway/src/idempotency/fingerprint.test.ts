import { describe, expect, it } from "vitest";
import { canonicalBody, downstreamKey, requestFingerprint } from "./fingerprint.ts";

describe("canonical body", () => {
  it("sorts keys at every depth and spells numbers one way", () => {
    expect(canonicalBody('{ "b": 2.0, "a": {"z": [1, {"y": 1e2, "x": "é"}], "c": true} }')).toBe(
      '{"a":{"c":true,"z":[1,{"x":"é","y":100}]},"b":2}',
    );
  });

  it("treats an empty body as {}", () => {
    expect(canonicalBody("")).toBe("{}");
    expect(canonicalBody("  \n")).toBe("{}");
    expect(canonicalBody("{}")).toBe("{}");
  });

  it("keeps a body that is not JSON as sent", () => {
    expect(canonicalBody("amount=10")).toBe("amount=10");
  });
});

describe("request fingerprint", () => {
  const body = JSON.stringify({ amount: 10, currency: "NGN" });
  const fp = requestFingerprint("POST", "/pub/v2/onramp", body);

  it("is the same for the same method, path and JSON in another spelling", () => {
    expect(requestFingerprint("post", "/pub/v2/onramp", '{"currency":"NGN","amount":10.0}')).toBe(fp);
    expect(requestFingerprint("POST", "/sandbox/v2/payment/1/deposit", "")).toBe(
      requestFingerprint("POST", "/sandbox/v2/payment/1/deposit", "{}"),
    );
  });

  it("differs when the method, path, query or body differs", () => {
    expect(requestFingerprint("PATCH", "/pub/v2/onramp", body)).not.toBe(fp);
    expect(requestFingerprint("POST", "/pub/v2/offramp", body)).not.toBe(fp);
    expect(requestFingerprint("POST", "/pub/v2/onramp?x=1", body)).not.toBe(fp);
    expect(
      requestFingerprint("POST", "/pub/v2/onramp", JSON.stringify({ amount: 11, currency: "NGN" })),
    ).not.toBe(fp);
  });

  it("gives the owning service a key bound to both the client's key and the request", () => {
    expect(downstreamKey("k1", fp)).toBe(downstreamKey("k1", fp));
    expect(downstreamKey("k1", fp)).not.toBe(downstreamKey("k2", fp));
    expect(downstreamKey("k1", fp)).not.toBe(downstreamKey("k1", requestFingerprint("POST", "/x", "{}")));
  });
});
