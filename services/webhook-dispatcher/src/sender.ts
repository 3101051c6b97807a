import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isPublicAddress } from "@ramp/contracts";
import { assertAllowedUrl, RefusedTarget } from "./ssrf.ts";

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface SendResult {
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The start of the receiver's answer (see `keptResponse`), for the delivery log. */
  response: string | null;
}

/** Bytes of a receiver's answer kept: enough to recognise an error page, never a document. */
export const RESPONSE_EXCERPT_LIMIT = 200;

/**
 * What the delivery log keeps of an answer: a short excerpt from a public receiver, nothing from one on a
 * private network (allowed in the sandbox or with WEBHOOK_ALLOW_PRIVATE). Whoever configures a webhook
 * reads the log back, so keeping a private target's answer would make the dispatcher a reader of the
 * network it runs in; the status and duration say whether the receiver took the delivery.
 */
export function keptResponse(remoteAddress: string | undefined, body: Buffer): string | null {
  if (!remoteAddress || !isPublicAddress(remoteAddress)) return null;
  return body.subarray(0, RESPONSE_EXCERPT_LIMIT).toString("utf8");
}

/**
 * Resolves and vets in the same step that connects, so the addresses checked are the addresses
 * used: a DNS answer that changes between a check and the connect (rebinding) cannot slip through.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, "", 0);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad || addresses.length === 0) {
      const reason = bad ? `resolves to non-public address ${bad.address}` : "does not resolve";
      return callback(new RefusedTarget(`Refused: ${hostname} ${reason}`), "", 0);
    }
    if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};

// Keep-alive: receivers get many deliveries; re-handshaking TLS for each one wastes both sides.
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

function describeError(err: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `Timed out after ${timeoutMs} ms`;
  if (err instanceof RefusedTarget) return err.message;
  const e = err as NodeJS.ErrnoException;
  if (e?.cause instanceof RefusedTarget) return e.cause.message;
  if (e?.code) return `Connection failed: ${e.code}`;
  return `Request failed: ${e?.message ?? String(err)}`;
}

function readLimited(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (chunk: Buffer) => {
      if (size < RESPONSE_EXCERPT_LIMIT) chunks.push(chunk);
      size += chunk.length;
    });
    const done = () => resolve(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_LIMIT));
    res.on("end", done);
    res.on("close", done);
    res.on("error", done);
  });
}

/**
 * One POST attempt. Success is any 2xx within the timeout; redirects are never followed
 * (node:http does not follow them) and count as failures: only a 2xx is a success.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
    assertAllowedUrl(target, opts.allowPrivate);
  } catch (err) {
    const error = err instanceof RefusedTarget ? err.message : "Refused: invalid URL";
    return { delivered: false, statusCode: null, durationMs: elapsed(), error, response: null };
  }
  const isHttps = target.protocol === "https:";
  const payload = Buffer.from(body, "utf8");
  let timedOut = false;
  return new Promise<SendResult>((resolve) => {
    const req = (isHttps ? https : http).request(target, {
      method: "POST",
      headers: { ...headers, "content-length": String(payload.length), "user-agent": "ramp-webhooks/2" },
      agent: isHttps ? agents.https : agents.http,
      ...(opts.allowPrivate ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error("timeout"));
    }, opts.timeoutMs);
    req.on("response", async (res) => {
      const statusCode = res.statusCode ?? 0;
      const response = keptResponse(res.socket?.remoteAddress, await readLimited(res));
      clearTimeout(timer);
      const ok = statusCode >= 200 && statusCode < 300;
      let error: string | null = null;
      if (statusCode >= 300 && statusCode < 400) error = `Redirect (${statusCode}) not followed`;
      else if (!ok) error = `Receiver answered ${statusCode}`;
      // Headers arrived in time; a body cut off by the deadline does not undo a 2xx.
      resolve({ delivered: ok, statusCode, durationMs: elapsed(), error, response });
    });
    req.on("error", (err) => {
      clearTimeout(timer);
      resolve({
        delivered: false,
        statusCode: null,
        durationMs: elapsed(),
        error: describeError(err, opts.timeoutMs, timedOut),
        response: null,
      });
    });
    req.end(payload);
  });
}
