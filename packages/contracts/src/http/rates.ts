import { z } from "zod";
import { Currency, RateType } from "../enums.ts";

export const RateDto = z
  .object({
    rate: z.number(),
    type: RateType,
    id: z.string(),
    baseCurrency: Currency,
    targetCurrency: Currency,
    createdAt: z.string(),
  })
  .meta({ id: "RateDto" });
export type RateDto = z.infer<typeof RateDto>;

export const RatesDto = z.object({ onRampRate: RateDto, offRampRate: RateDto }).meta({ id: "RatesDto" });
export type RatesDto = z.infer<typeof RatesDto>;

export const RateQuery = z.strictObject({ currency: Currency });
export type RateQuery = z.infer<typeof RateQuery>;
