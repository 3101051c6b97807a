import { z } from "zod";
import { isChainMint, MAX_ADDRESS_LENGTH } from "../addresses.ts";
import { DecimalString, EDGE_DECIMALS, jsonDecimal, readJsonDecimal } from "../decimals.ts";
import { Chain, Currency, PaymentMethod, PaymentStatus } from "../enums.ts";
import { boundedString, TEXT_MAX } from "../text.ts";

const paymentFields = <A extends z.ZodType<string>>(amount: A) =>
  z.strictObject({
    method: PaymentMethod.default("TOKEN"),
    chain: Chain.optional(),
    mint: boundedString(MAX_ADDRESS_LENGTH, { min: 1 }).optional(),
    currency: Currency.optional(),
    amount,
    reference: boundedString(TEXT_MAX.freeText).optional(),
  });

const checkPayment = (
  body: {
    method: PaymentMethod;
    chain?: Chain | undefined;
    mint?: string | undefined;
    currency?: Currency | undefined;
    amount: string;
  },
  ctx: z.core.$RefinementCtx,
) => {
  if (body.method === "TOKEN") {
    if (!body.chain)
      ctx.addIssue({ code: "custom", message: "is required for method TOKEN", path: ["chain"] });
    if (!body.mint) ctx.addIssue({ code: "custom", message: "is required for method TOKEN", path: ["mint"] });
    if (body.chain && body.mint && !isChainMint(body.chain, body.mint))
      ctx.addIssue({ code: "custom", message: `must be a ${body.chain} token address`, path: ["mint"] });
    return;
  }
  if (!body.currency)
    ctx.addIssue({ code: "custom", message: "is required for method FIAT", path: ["currency"] });
  // The payer is told an amount in fiat, which has 2 decimals: a finer amount could never be paid exactly.
  const fiat = readJsonDecimal(body.amount, EDGE_DECIMALS.fiat, "positive");
  if (!fiat.ok) ctx.addIssue({ code: "custom", message: fiat.error, path: ["amount"] });
};

/** A FIAT payment's amount has fiat's 2 decimals; a TOKEN payment's is checked against the token by orders. */
export const CreatePaymentRequest = paymentFields(jsonDecimal(EDGE_DECIMALS.token, "positive"))
  .superRefine(checkPayment)
  .meta({ id: "CreatePaymentDto" });
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequest>;
/** The payment body as the gateway hands it to orders. */
export const PaymentOrder = paymentFields(DecimalString).superRefine(checkPayment);

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
