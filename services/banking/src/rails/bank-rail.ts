import type { Currency } from "@ramp/contracts";

/** The bank side of the product. Implementations: sandbox today; a real rail plugs in here. */
export interface BankRail {
  /** Resolves the holder name of an account, or null when the bank says it does not exist. */
  nameEnquiry(bankCode: string, accountNumber: string): Promise<{ accountName: string } | null>;
  openVirtualAccount(req: {
    ref: string;
    currency: Currency;
    holder: string;
  }): Promise<{ accountNumber: string; bankName: string }>;
  closeVirtualAccount(accountNumber: string): Promise<void>;
  /** Idempotent per `orderId`: asking twice pays once and answers the same. */
  payout(req: {
    orderId: string;
    bankCode: string;
    accountNumber: string;
    accountName: string;
    currency: Currency;
    fiatAmount: string;
    narration: string;
  }): Promise<{ status: "COMPLETED" | "FAILED"; reference: string; reason: string | null }>;
}

export class RailTimeoutError extends Error {
  override name = "RailTimeoutError";
}

/** The rail answered 5xx or could not be reached: the same request may pass later. */
export class RailUnavailableError extends Error {
  override name = "RailUnavailableError";
}

/** A failure worth asking again (the rail is idempotent per order); anything else is final. */
export const isTransientRailError = (err: unknown) =>
  err instanceof RailTimeoutError || err instanceof RailUnavailableError;

/** Bounds a rail call; the caller turns a timeout into a transient 503. */
export async function withTimeout<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new RailTimeoutError(`bank rail did not answer within ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
