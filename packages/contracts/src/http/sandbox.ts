import { z } from "zod";
import { positiveAmount } from "../decimals.ts";

export const SandboxFiatDepositRequest = z.strictObject({ fiatAmount: positiveAmount(2).optional() });
export const SandboxTokenDepositRequest = z.strictObject({ amount: positiveAmount(18).optional() });
export const SandboxPaymentDepositRequest = z.strictObject({});
export const SandboxAcceptedDto = z.object({ accepted: z.literal(true), reference: z.string() });
