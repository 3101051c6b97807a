import { samplePayment, sampleTransaction, signedHeaders } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { WebhookVerificationError, type WebhookVerificationReason } from "./errors.ts";
import { verifyWebhook } from "./webhooks.ts";

const SECRET = `whsec_${"0123456789abcdef".repeat(4)}`;
const OTHER_SECRET = `whsec_${"fedcba9876543210".repeat(4)}`;
const tx = sampleTransaction({ status: "PROCESSING" });
const BODY = JSON.stringify(tx);

function reasonOf(fn: () => unknown): WebhookVerificationReason {
  try {
    fn();
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
  throw new Error("verification passed");
}

describe("verifyWebhook", () => {
  it("returns the typed transaction of a genuine delivery, from text or raw bytes", () => {
    const headers = signedHeaders("X-SVC", SECRET, BODY);
    const fromText = verifyWebhook({ rawBody: BODY, headers, secret: SECRET });
    expect(fromText).toEqual(tx);
    const fromBytes = verifyWebhook({
      rawBody: Buffer.from(BODY),
      headers: new Headers(headers),
      secret: SECRET,
    });
    if (!("transactionType" in fromBytes)) throw new Error("expected a transaction");
    expect(fromBytes.status).toBe("PROCESSING");
  });

  it("returns a settled payment as a payment", () => {
    const payment = samplePayment();
    const body = JSON.stringify(payment);
    const got = verifyWebhook({
      rawBody: body,
      headers: signedHeaders("X-SVC", SECRET, body),
      secret: SECRET,
    });
    if (!("method" in got)) throw new Error("expected a payment");
    expect(got.totalAmount).toBe(payment.totalAmount);
  });

  it("matches header names in any letter case (Node lower-cases them)", () => {
    const headers = Object.fromEntries(
      Object.entries(signedHeaders("X-SVC", SECRET, BODY)).map(([k, v]) => [k.toLowerCase(), v]),
    );
    expect(verifyWebhook({ rawBody: BODY, headers, secret: SECRET }).id).toBe(tx.id);
  });

  it("rejects a body changed by a single byte", () => {
    const headers = signedHeaders("X-SVC", SECRET, BODY);
    const tampered = BODY.replace('"PROCESSING"', '"COMPLETED"');
    expect(reasonOf(() => verifyWebhook({ rawBody: tampered, headers, secret: SECRET }))).toBe(
      "signature_mismatch",
    );
    expect(reasonOf(() => verifyWebhook({ rawBody: `${BODY} `, headers, secret: SECRET }))).toBe(
      "signature_mismatch",
    );
  });

  it("rejects a delivery signed with another secret", () => {
    const headers = signedHeaders("X-SVC", OTHER_SECRET, BODY);
    expect(reasonOf(() => verifyWebhook({ rawBody: BODY, headers, secret: SECRET }))).toBe(
      "signature_mismatch",
    );
  });

  it("rejects a genuine delivery signed longer ago than the tolerance, and honours a wider one", () => {
    const sixMinutesAgo = new Date(Date.now() - 360_000);
    const headers = signedHeaders("X-SVC", SECRET, BODY, sixMinutesAgo);
    expect(reasonOf(() => verifyWebhook({ rawBody: BODY, headers, secret: SECRET }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(verifyWebhook({ rawBody: BODY, headers, secret: SECRET, toleranceSeconds: 600 }).id).toBe(tx.id);
    const fromTheFuture = signedHeaders("X-SVC", SECRET, BODY, new Date(Date.now() + 360_000));
    expect(reasonOf(() => verifyWebhook({ rawBody: BODY, headers: fromTheFuture, secret: SECRET }))).toBe(
      "timestamp_out_of_tolerance",
    );
  });

  it("names a missing header", () => {
    const { "X-SVC-Signature": _sig, ...noSignature } = signedHeaders("X-SVC", SECRET, BODY);
    const error = (() => {
      try {
        verifyWebhook({ rawBody: BODY, headers: noSignature, secret: SECRET });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).reason).toBe("missing_header");
    expect((error as WebhookVerificationError).message).toContain("X-SVC-Signature");
    expect(reasonOf(() => verifyWebhook({ rawBody: BODY, headers: {}, secret: SECRET }))).toBe(
      "missing_header",
    );
  });

  it("rejects a signature header without a v1=<hex> value, or a timestamp that is not Unix seconds", () => {
    const headers = signedHeaders("X-SVC", SECRET, BODY);
    const sig = headers["X-SVC-Signature"] ?? "";
    for (const bad of [sig.slice(3), `v2=${sig.slice(3)}`, "v1=nothex", ""]) {
      expect(
        reasonOf(() =>
          verifyWebhook({ rawBody: BODY, headers: { ...headers, "X-SVC-Signature": bad }, secret: SECRET }),
        ),
      ).toBe("malformed_header");
    }
    expect(
      reasonOf(() =>
        verifyWebhook({
          rawBody: BODY,
          headers: { ...headers, "X-SVC-Timestamp": "2026-01-02T03:04:05Z" },
          secret: SECRET,
        }),
      ),
    ).toBe("malformed_header");
  });

  it("accepts a v1 value among other schemes sent alongside during a transition", () => {
    const headers = signedHeaders("X-SVC", SECRET, BODY);
    const both = { ...headers, "X-SVC-Signature": `v2=${"ab".repeat(32)}, ${headers["X-SVC-Signature"]}` };
    expect(verifyWebhook({ rawBody: BODY, headers: both, secret: SECRET }).id).toBe(tx.id);
  });

  it("reads the operator's header prefix, and only it", () => {
    const headers = signedHeaders("X-ACME", SECRET, BODY);
    expect(verifyWebhook({ rawBody: BODY, headers, secret: SECRET, headerPrefix: "X-ACME" }).id).toBe(tx.id);
    expect(reasonOf(() => verifyWebhook({ rawBody: BODY, headers, secret: SECRET }))).toBe("missing_header");
  });

  it("rejects a correctly signed body that is not a delivery payload", () => {
    const body = '{"hello":"world"}';
    const headers = signedHeaders("X-SVC", SECRET, body);
    expect(reasonOf(() => verifyWebhook({ rawBody: body, headers, secret: SECRET }))).toBe("invalid_payload");
  });
});
