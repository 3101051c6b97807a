// Waits for the stack to answer, then gives the sandbox market rates and a business to try it with:
// the business of the last start when its key still works, so a restart keeps the key integrators use.

import { type ConsoleSignIn, seedConsolePeople } from "./console-people.ts";

const SANDBOX_RATES: Record<string, [number, number]> = {
  NGN: [1650, 1580],
  GHS: [15.6, 15.1],
  KES: [130.5, 128.2],
  TZS: [2680, 2620],
  ZAR: [18.6, 18.1],
  USD: [1, 1],
};
const READY_WITHIN_MS = 120_000;

/** Retries `fn` until it returns a value; stops early once `signal` aborts (the stack is coming down). */
async function retry<T>(what: string, signal: AbortSignal, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not succeed within ${READY_WITHIN_MS / 1000} s`);
}

export interface SandboxSeed {
  apiKey: string;
  webhookSecret: string;
  /** Absent in a kept file written before the console existed: then no console people are made. */
  businessId?: string;
}

/**
 * Every gateway replica answers /readyz, which it does once every service it calls has a responder on
 * this stack's NATS.
 */
export async function awaitGatewaysReady(gateways: readonly string[], signal: AbortSignal): Promise<void> {
  for (const url of gateways) {
    await retry(`${url}/readyz`, signal, async () =>
      (await fetch(`${url}/readyz`, { signal })).ok ? true : undefined,
    );
  }
}

/**
 * The sandbox business: `kept` (the last start's) when the gateway still accepts its key; else a new
 * one, after the sandbox market rates (set only then, so rates an operator changed survive a restart).
 */
export async function sandboxBusiness(
  base: string,
  adminToken: string,
  kept: SandboxSeed | undefined,
  signal: AbortSignal,
): Promise<{ seed: SandboxSeed; reused: boolean }> {
  if (kept) {
    const status = await retry("sandbox key check", signal, async () => {
      const res = await fetch(`${base}/pub/v2/rate?currency=NGN`, {
        headers: { "x-api-key": kept.apiKey },
        signal,
      });
      return res.status >= 500 ? undefined : res.status;
    });
    if (status !== 401 && status !== 403) return { seed: kept, reused: true };
  }
  const admin = (method: string, path: string, body: unknown) =>
    fetch(`${base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
  for (const [currency, [onRamp, offRamp]] of Object.entries(SANDBOX_RATES)) {
    await retry(`rate ${currency}`, signal, async () =>
      (await admin("PUT", `/rates/${currency}`, { onRamp, offRamp })).ok ? true : undefined,
    );
  }
  const seed = await retry("sandbox business", signal, async () => {
    const res = await admin("POST", "/businesses", { name: "Sandbox Business", feeBps: 0 });
    if (res.status !== 201) return undefined;
    const { apiKey, webhookSecret, id } = (await res.json()) as SandboxSeed & { id: string };
    return { apiKey, webhookSecret, businessId: id };
  });
  return { seed, reused: false };
}

/** The console's sandbox sign-ins: an admin operator and the sandbox business's owner, made once. */
export async function sandboxConsolePeople(
  base: string,
  adminToken: string,
  seed: SandboxSeed,
  signal: AbortSignal,
  warn?: (line: string) => void,
): Promise<ConsoleSignIn[]> {
  const { businessId } = seed;
  if (!businessId) return [];
  return retry("sandbox console people", signal, () =>
    seedConsolePeople(base, adminToken, businessId, signal, warn),
  );
}
