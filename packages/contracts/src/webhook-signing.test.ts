import { describe, expect, it } from "vitest";
import { signatureV1, signedHeaders } from "./webhook-signing.ts";

// Vector computed independently of this code, with:
//   printf '%s' '1700000000.{"id":"abc","status":"COMPLETED"}' \
//     | openssl dgst -sha256 -hmac 'whsec_0123456789abcdef…' (the secret below)
const SECRET = `whsec_${"0123456789abcdef".repeat(4)}`;
const BODY = '{"id":"abc","status":"COMPLETED"}';
const TS = 1_700_000_000;
const EXPECTED = "5d5d75fe8ec250a5363133dc6abbc5c3a382ccc3ba2e7e3d1840766a8ca3c204";

describe("signing", () => {
  it("matches a known vector", () => {
    expect(signatureV1(SECRET, TS, BODY)).toBe(EXPECTED);
  });

  it("puts a v1= signature and the unix-seconds timestamp in prefixed headers", () => {
    const h = signedHeaders("X-SVC", SECRET, BODY, new Date(TS * 1000 + 999));
    expect(h).toEqual({
      "content-type": "application/json",
      "X-SVC-Timestamp": String(TS),
      "X-SVC-Signature": `v1=${EXPECTED}`,
    });
    expect(Object.keys(signedHeaders("X-ACME", SECRET, BODY))).toContain("X-ACME-Signature");
  });

  it("hashes raw bytes exactly as the same text", () => {
    expect(signatureV1(SECRET, TS, Buffer.from(BODY, "utf8"))).toBe(EXPECTED);
    expect(signatureV1(SECRET, String(TS), BODY)).toBe(EXPECTED);
  });

  it("changes with every byte of the body and with the timestamp", () => {
    expect(signatureV1(SECRET, TS, `${BODY} `)).not.toBe(EXPECTED);
    expect(signatureV1(SECRET, TS + 1, BODY)).not.toBe(EXPECTED);
  });

  it("sends unsigned deliveries without signature headers", () => {
    expect(signedHeaders("X-SVC", null, BODY)).toEqual({ "content-type": "application/json" });
  });
});
