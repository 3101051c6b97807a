import type { RatesDto } from "@ramp/contracts";

/** What pricing's `rates.get` answers, at one rate for both directions: for stand-in pricing responders. */
export function ratesAnswer(rate: number): RatesDto {
  const dto = (type: "onRamp" | "offRamp") => ({
    rate,
    type,
    id: "0123456789abcdef01234567",
    baseCurrency: "USD" as const,
    targetCurrency: "NGN" as const,
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  return { onRampRate: dto("onRamp"), offRampRate: dto("offRamp") };
}
