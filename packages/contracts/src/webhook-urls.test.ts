import { describe, expect, it } from "vitest";
import { UpdateWebhookRequest } from "./http/webhooks.ts";
import { formatIssues } from "./validation.ts";
import { isAllowedWebhookUrl } from "./webhook-urls.ts";

describe("webhook URL fields", () => {
  const messages = (body: unknown) => {
    const r = UpdateWebhookRequest.safeParse(body);
    return r.success ? [] : formatIssues(r.error.issues);
  };
  it('take absolute http(s) URLs of at most 2,048 characters, or "" to clear', () => {
    expect(messages({ rampWebhookURL: "" })).toEqual([]);
    expect(messages({ rampWebhookURL: `https://example.com/${"a".repeat(2028)}` })).toEqual([]);
    expect(messages({ rampWebhookURL: `https://example.com/${"a".repeat(2029)}` })).toEqual([
      "rampWebhookURL must be at most 2048 characters",
    ]);
    for (const url of ["javascript:alert(1)", "file:///etc/passwd", "ftp://example.com/", "/relative"])
      expect(messages({ paymentWebhookURL: url })).toEqual(["paymentWebhookURL must be a URL address"]);
  });
});

describe("isAllowedWebhookUrl", () => {
  it("allows any http(s) URL when private targets are allowed", () => {
    expect(isAllowedWebhookUrl("http://127.0.0.1:8080/x", true)).toBe(true);
    expect(isAllowedWebhookUrl("javascript:alert(1)", true)).toBe(false);
  });

  it("otherwise takes only https to a DNS name or a public address", () => {
    expect(isAllowedWebhookUrl("https://example.com/hook", false)).toBe(true);
    expect(isAllowedWebhookUrl("https://8.8.8.8/hook", false)).toBe(true);
    expect(isAllowedWebhookUrl("http://example.com/hook", false)).toBe(false);
    for (const host of [
      "127.0.0.1",
      "10.1.2.3",
      "169.254.169.254",
      "[::1]",
      "[::ffff:127.0.0.1]",
      "[::127.0.0.1]",
      "[64:ff9b::a9fe:a9fe]",
      "2130706433",
      "0x7f.1",
    ])
      expect(isAllowedWebhookUrl(`https://${host}/hook`, false), host).toBe(false);
  });
});
