// Waits for the stack to answer, then gives the sandbox market rates and a business to try it with.

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
  /** The console's sandbox sign-ins (an admin operator and the sandbox business's owner). */
  console: ConsoleSignIn[];
}

/**
 * Every gateway replica answers /readyz; then, through the first, the admin calls that also need
 * pricing and webhook-dispatcher: market rates and (in the sandbox) a business whose key is printed.
 */
export async function awaitReadyAndSeed(
  gateways: readonly string[],
  adminToken: string,
  sandbox: boolean,
  signal: AbortSignal,
): Promise<SandboxSeed | undefined> {
  for (const url of gateways) {
    await retry(`${url}/readyz`, signal, async () => ((await fetch(`${url}/readyz`)).ok ? true : undefined));
  }
  if (!sandbox) return undefined;
  const base = gateways[0]!;
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
  const business = await retry("sandbox business", signal, async () => {
    const res = await admin("POST", "/businesses", { name: "Sandbox Business", feeBps: 0 });
    return res.status === 201 ? ((await res.json()) as { id: string; apiKey: string }) : undefined;
  });
  const people = await retry("sandbox console people", signal, () =>
    seedConsolePeople(base, adminToken, business.id, signal),
  );
  return { apiKey: business.apiKey, console: people };
}
