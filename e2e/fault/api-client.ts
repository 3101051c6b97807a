/** What the gateway answered; status 0 when nothing answered (connection refused, reset, timeout). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** An outage is 0 (no answer) or 502-504: the only answers after which the driver may try again. */
export const isOutage = (status: number) => status === 0 || (status >= 502 && status <= 504);

/**
 * The public API as an integrator's backend sees it while services die under it: an answer or
 * "no answer", never an exception, so each caller decides what is safe to retry.
 */
export function apiClient(baseUrls: string | readonly string[], headers: Record<string, string>) {
  const bases = typeof baseUrls === "string" ? [baseUrls] : baseUrls;
  let next = 0;
  /** Calls take turns over the gateway replicas, as a load balancer without health checks would. */
  async function call(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    const base = bases[next++ % bases.length];
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { "content-type": "application/json", ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text for the report
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      return { status: 0, body: err instanceof Error ? (err.cause ?? err).toString() : String(err) };
    }
  }
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body: unknown = {}) => call("POST", path, body),
    patch: (path: string, body: unknown) => call("PATCH", path, body),
    put: (path: string, body: unknown) => call("PUT", path, body),
  };
}
export type ApiClient = ReturnType<typeof apiClient>;
