import { z } from "zod";
import { isChainMint } from "../addresses.ts";
import { Chain, Currency, PaymentMethod, PaymentStatus } from "../enums.ts";

export const CreatePaymentRequest = z
  .strictObject({
    method: PaymentMethod.default("TOKEN"),
    chain: Chain.optional(),
    mint: z.string().min(1).optional(),
    currency: Currency.optional(),
    amount: z.number().positive({ message: "amount must be a positive number" }),
    reference: z.string().max(200).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.method === "TOKEN") {
      if (!body.chain)
        ctx.addIssue({ code: "custom", message: "is required for method TOKEN", path: ["chain"] });
      if (!body.mint)
        ctx.addIssue({ code: "custom", message: "is required for method TOKEN", path: ["mint"] });
      if (body.chain && body.mint && !isChainMint(body.chain, body.mint))
        ctx.addIssue({ code: "custom", message: `must be a ${body.chain} token address`, path: ["mint"] });
    } else if (!body.currency) {
      ctx.addIssue({ code: "custom", message: "is required for method FIAT", path: ["currency"] });
    }
  })
  .meta({ id: "CreatePaymentDto" });
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequest>;

export const PaymentDto = z
  .object({
    id: z.string(),
    status: PaymentStatus,
    method: PaymentMethod,
    amount: z.number(),
    fee: z.number(),
    totalAmount: z.number(),
    currency: z.string().nullable(),
    chain: Chain.nullable(),
    mint: z.string().nullable(),
    reference: z.string().nullable(),
    createdAt: z.string(),
    expiresAt: z.string(),
    token: z.object({ address: z.string(), chain: Chain, mint: z.string(), amount: z.number() }).optional(),
    fiat: z
      .object({
        accountNumber: z.string(),
        accountName: z.string(),
        bank: z.string(),
        amount: z.number(),
        currency: Currency,
      })
      .optional(),
  })
  .meta({ id: "PaymentResponseDto" });
export type PaymentDto = z.infer<typeof PaymentDto>;
