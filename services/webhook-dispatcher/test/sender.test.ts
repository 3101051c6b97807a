import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "../src/sender.ts";

/** What a receiver on this machine sees of one POST, and how the attempt reads to the delivery log. */
describe("one webhook POST against a real receiver", () => {
  let server: Server;
  let base = "";
  const seen: Array<{ path: string; headers: Record<string, unknown>; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url === "/hang") return; // never answers
        if (req.url === "/big") return void res.writeHead(200).end("x".repeat(100_000));
        if (req.url === "/moved") return void res.writeHead(302, { location: "/hook" }).end();
        res.writeHead(req.url === "/fail" ? 503 : 204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  const open = { timeoutMs: 2_000, allowPrivate: true };

  it("sends exactly the body and headers given, with its length, to the URL's path and query", async () => {
    const body = JSON.stringify({ id: "ord_1", note: "naïve €" });
    const r = await postWebhook(`${base}/hook?x=1`, body, { "x-svc-signature": "v1=ab" }, open);
    expect(r).toMatchObject({ delivered: true, statusCode: 204, error: null });
    const got = seen.at(-1);
    expect(got?.path).toBe("/hook?x=1");
    expect(got?.body).toBe(body);
    expect(got?.headers["x-svc-signature"]).toBe("v1=ab");
    expect(got?.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(got?.headers["user-agent"]).toBe("ramp-webhooks/2");
  });

  it("reads a long answer to its end but keeps nothing of a receiver on a private network", async () => {
    const r = await postWebhook(`${base}/big`, "{}", {}, open);
    expect(r).toMatchObject({ delivered: true, statusCode: 200, response: null });
    // The connection is reusable afterwards: the next POST goes through.
    expect((await postWebhook(`${base}/hook`, "{}", {}, open)).delivered).toBe(true);
  });

  it("names a non-2xx answer, a redirect it did not follow, and a deadline", async () => {
    expect(await postWebhook(`${base}/fail`, "{}", {}, open)).toMatchObject({
      delivered: false,
      statusCode: 503,
      error: "Receiver answered 503",
    });
    const moved = await postWebhook(`${base}/moved`, "{}", {}, open);
    expect(moved).toMatchObject({ delivered: false, statusCode: 302, error: "Redirect (302) not followed" });
    expect(seen.filter((s) => s.path === "/moved")).toHaveLength(1);
    const hung = await postWebhook(`${base}/hang`, "{}", {}, { ...open, timeoutMs: 300 });
    expect(hung).toMatchObject({ delivered: false, statusCode: null, error: "Timed out after 300 ms" });
    expect(hung.durationMs).toBeGreaterThanOrEqual(290);
    expect(hung.durationMs).toBeLessThan(5_000); // the receiver never answers: only the deadline ends it
  });

  it("says why a connection failed or was refused before it was made", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect((await postWebhook(`http://127.0.0.1:${port}/`, "{}", {}, open)).error).toBe(
      "Connection failed: ECONNREFUSED",
    );
    const guarded = { timeoutMs: 2_000, allowPrivate: false };
    expect((await postWebhook(`${base}/hook`, "{}", {}, guarded)).error).toBe(
      "Refused: only https URLs are allowed",
    );
    const port2 = (server.address() as AddressInfo).port;
    expect((await postWebhook(`https://localhost:${port2}/hook`, "{}", {}, guarded)).error).toMatch(
      /^Refused: localhost resolves to non-public address (127\.0\.0\.1|::1)$/,
    );
  });
});
