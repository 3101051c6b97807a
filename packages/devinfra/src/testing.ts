/** Helpers shared by every integration test (e2e and services' own `test/` folders). */
import type {} from "vitest";

/** What the integration project's global setup (e2e/support/global-setup.ts) provides to each test file. */
declare module "vitest" {
  export interface ProvidedContext {
    mongoUrl: string;
    natsBin: string;
    natsUrl: string;
    testDataDir: string;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value (not undefined) or the time runs out; the last error is reported. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await sleep(stepMs);
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
}
