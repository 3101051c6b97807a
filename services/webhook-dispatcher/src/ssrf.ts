import { isAllowedWebhookUrl } from "@ramp/contracts";

export class RefusedTarget extends Error {
  override name = "RefusedTarget";
}

/**
 * Checks what can be checked without DNS, with the rule that vetted the URL when it was saved (a URL
 * stored while private targets were allowed is still refused here); the addresses a DNS name
 * resolves to are checked at connect time.
 */
export function assertAllowedUrl(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new RefusedTarget(`Refused: unsupported scheme ${url.protocol}`);
  }
  if (allowPrivate) return;
  if (url.protocol !== "https:") throw new RefusedTarget("Refused: only https URLs are allowed");
  if (!isAllowedWebhookUrl(url.href, false)) {
    throw new RefusedTarget(`Refused: ${url.hostname.replace(/^\[|\]$/g, "")} is not a public address`);
  }
}
