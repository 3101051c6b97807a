import { z } from "zod";
import { EDGE_DECIMALS, jsonDecimal } from "../decimals.ts";

export const SandboxFiatDepositRequest = z.strictObject({
  fiatAmount: jsonDecimal(EDGE_DECIMALS.fiat, "positive").optional(),
});
export const SandboxTokenDepositRequest = z.strictObject({
  amount: jsonDecimal(EDGE_DECIMALS.token, "positive").optional(),
});
export const SandboxPaymentDepositRequest = z.strictObject({});
export const SandboxAcceptedDto = z.object({ accepted: z.literal(true), reference: z.string() });
