import { z } from "zod";
import { EDGE_DECIMALS, jsonDecimal, jsonInteger } from "../decimals.ts";
import { Currency } from "../enums.ts";
import { boundedString, TEXT_MAX } from "../text.ts";
import { ObjectIdString } from "./transactions.ts";

export const CreateBusinessRequest = z.strictObject({
  name: boundedString(TEXT_MAX.freeText, { min: 1 }),
  feeBps: jsonInteger(5000).default(0),
});
export type CreateBusinessRequest = z.infer<typeof CreateBusinessRequest>;

export const CreatedBusinessDto = z.object({
  id: z.string(),
  name: z.string(),
  apiKey: z.string(),
  webhookSecret: z.string(),
});

export const CreatedApiKeyDto = z.object({ apiKey: z.string(), webhookSecret: z.string() });

export const SetMarketRateRequest = z.strictObject({
  onRamp: jsonDecimal(EDGE_DECIMALS.rate, "positive"),
  offRamp: jsonDecimal(EDGE_DECIMALS.rate, "positive"),
});
export type SetMarketRateRequest = z.infer<typeof SetMarketRateRequest>;

export const CurrencyParams = z.strictObject({ currency: Currency });
export const BusinessParams = z.strictObject({ id: ObjectIdString });

/** Revoking takes the key itself: the operator holds it, the gateway only its hash. */
export const RevokeApiKeyRequest = z.strictObject({ apiKey: boundedString(TEXT_MAX.identifier, { min: 1 }) });
export type RevokeApiKeyRequest = z.infer<typeof RevokeApiKeyRequest>;
