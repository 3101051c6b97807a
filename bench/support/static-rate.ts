import { type RatesDto, RatesDto as RatesSchema } from "@ramp/contracts";

/** What `GET /pub/v2/rate` answers, fixed: the floors serve it so they move the same bytes as the system. */
export const STATIC_RATES: RatesDto = RatesSchema.parse({
  onRampRate: {
    rate: 1658.25,
    type: "onRamp",
    id: "0123456789abcdef01234567",
    baseCurrency: "USD",
    targetCurrency: "NGN",
    createdAt: "2026-01-01T00:00:00.000Z",
  },
  offRampRate: {
    rate: 1572.1,
    type: "offRamp",
    id: "0123456789abcdef01234568",
    baseCurrency: "USD",
    targetCurrency: "NGN",
    createdAt: "2026-01-01T00:00:00.000Z",
  },
});
