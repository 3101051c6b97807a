import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An independent webhook receiver: verification written from docs/integrator-guide.md §4, not from the dispatcher. */

export interface Received {
  raw: Buffer;
  headers: IncomingHttpHeaders;
  timestamp: number | null;
  /** null when unsigned; true/false when a signature was present. */
  verified: boolean | null;
  body: any;
  answered: number;
}

export function verify(secret: string, headers: IncomingHttpHeaders, raw: Buffer): boolean | null {
  const ts = headers["x-svc-timestamp"];
  const sig = headers["x-svc-signature"];
  if (typeof ts !== "string" || typeof sig !== "string") return null;
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const mac = createHmac("sha256", secret);
  mac.update(Buffer.concat([Buffer.from(`${ts}.`), raw]));
  const expected = Buffer.from(mac.digest("hex"));
  return sig
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.startsWith("v1="))
    .some((s) => {
      const given = Buffer.from(s.slice(3));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

export type Behaviour = (n: number, req: { path: string }) => { status: number; location?: string };

export async function receiver(behaviour: Behaviour = () => ({ status: 200 })) {
  const got: Received[] = [];
  let secret = "";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const b = behaviour(got.length + 1, { path: req.url ?? "/" });
      got.push({
        raw,
        headers: req.headers,
        timestamp: req.headers["x-svc-timestamp"] ? Number(req.headers["x-svc-timestamp"]) : null,
        verified: verify(secret, req.headers, raw),
        body: JSON.parse(raw.toString("utf8")),
        answered: b.status,
      });
      res.writeHead(b.status, b.location ? { location: b.location } : {});
      res.end(b.status >= 400 ? "nope" : "ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    setSecret: (s: string) => {
      secret = s;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
export type Receiver = Awaited<ReturnType<typeof receiver>>;
