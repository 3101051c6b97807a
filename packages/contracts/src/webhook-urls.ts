import { isIpLiteral, isPublicAddress } from "./ip-addresses.ts";
import { boundedString, TEXT_MAX } from "./text.ts";

export const WEBHOOK_URL_MAX_LENGTH = TEXT_MAX.url;
export const NOT_PUBLIC_WEBHOOK_URL = "webhook URL must be a public https URL";

function parseHttpUrl(url: string): URL | undefined {
  if (url.length > WEBHOOK_URL_MAX_LENGTH || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const http = parsed.protocol === "https:" || parsed.protocol === "http:";
  return http && parsed.hostname !== "" ? parsed : undefined;
}

/**
 * What any webhook URL field accepts: an absolute http(s) URL of at most 2,048 characters
 * (`orEmpty`: or "", which clears a saved URL).
 */
export const webhookUrl = (field: string, opts: { orEmpty?: boolean } = {}) =>
  boundedString(WEBHOOK_URL_MAX_LENGTH)
    .superRefine((url, ctx) => {
      if (opts.orEmpty && url === "") return;
      if (!parseHttpUrl(url)) ctx.addIssue({ code: "custom", message: `${field} must be a URL address` });
    })
    .meta({ format: "uri" });

/**
 * Whether a webhook may be saved with this URL. With private targets allowed (sandbox, local) any
 * http(s) URL may; otherwise only https to a DNS name or to a public IP literal. DNS names are
 * checked again when a delivery connects, since what they resolve to can change.
 */
export function isAllowedWebhookUrl(url: string, allowPrivate: boolean): boolean {
  const parsed = parseHttpUrl(url);
  if (!parsed) return false;
  if (allowPrivate) return true;
  if (parsed.protocol !== "https:") return false;
  return !isIpLiteral(parsed.hostname) || isPublicAddress(parsed.hostname);
}
