import { describe, expect, it } from "vitest";
import { generateWebhookSecret } from "./secrets.ts";

describe("webhook secrets", () => {
  it("are `whsec_` and 64 lowercase hex characters, and unique", () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});
