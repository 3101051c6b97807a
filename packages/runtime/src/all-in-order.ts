/**
 * Awaits independent calls started together and answers as if they had run one after another: their
 * results in argument order, or, when any fails, the error of the first failing one in argument order
 * (not the first to fail in time), after all have settled. Callers keep the error precedence of
 * sequential code — the same request gets the same error however the calls interleave — while paying
 * only for the slowest call.
 */
export async function allInOrder<T extends readonly unknown[]>(
  ...calls: { [K in keyof T]: Promise<T[K]> }
): Promise<T> {
  const settled = await Promise.allSettled(calls);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
