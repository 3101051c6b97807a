import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as an OTLP/HTTP JSON export carries it, with the service.name of its resource. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** "" for a span that starts its trace. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

export const SpanKinds = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const attributeValue = (v: OtlpValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ""));

const attributesOf = (list: OtlpAttribute[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, attributeValue(a.value)]));

/**
 * A tiny OTLP/HTTP collector on 127.0.0.1 accepting the JSON encoding at `POST /v1/traces`, written
 * from the OTLP specification rather than from the exporter: what it decodes is what any collector sees.
 */
export async function otlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (
        req.method !== "POST" ||
        req.url !== "/v1/traces" ||
        !req.headers["content-type"]?.includes("json")
      ) {
        rejected.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)["service.name"] ?? "");
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    rejected,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
export type OtlpReceiver = Awaited<ReturnType<typeof otlpReceiver>>;
