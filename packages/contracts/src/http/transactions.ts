import { z } from "zod";
import { isChainAddress, isChainMint } from "../addresses.ts";
import { nonNegativeAmount, positiveAmount } from "../decimals.ts";
import { Chain, Currency, OrderStatus, TransactionType } from "../enums.ts";

/**
 * Every field is always present with its documented type; unknown-yet values are "". The field order is
 * the public Transaction's, which the CSV export's columns follow.
 */
export const TransactionDto = z
  .object({
    id: z.string(),
    address: z.string(),
    signature: z.string(),
    mint: z.string(),
    currency: z.string(),
    amount: z.number(),
    usdcAmount: z.number(),
    fiatAmount: z.number(),
    sender: z.string(),
    recipient: z.string(),
    rate: z.number(),
    status: OrderStatus,
    transactionType: TransactionType,
    createdAt: z.string(),
    accountNumber: z.string(),
    accountName: z.string(),
    bank: z.string(),
    fee: z.number(),
    chain: Chain,
    /** Onramp: the client's free text, stored and echoed back; "" when none was given. */
    userExternalId: z.string(),
  })
  .meta({ id: "TransactionInterfaceDto" });
export type TransactionDto = z.infer<typeof TransactionDto>;

/** The Transaction's field names in their documented order (the CSV export's header). */
export const TRANSACTION_FIELDS = TransactionDto.keyof().options;

/** Token amounts are bounded to 18 decimals here; the token's own decimals are enforced by orders. */
const tokenAmount = positiveAmount(18);
const fiatAmount = positiveAmount(2);
const fee = nonNegativeAmount(6);

const exactlyOneAmount = (body: { amount?: number | undefined; fiatAmount?: number | undefined }) =>
  (body.amount === undefined) !== (body.fiatAmount === undefined);
const EXACTLY_ONE = "exactly one of amount and fiatAmount must be given";
const QUOTE_OR_AMOUNT = "quoteId must not be given together with amount or fiatAmount";

/** The amount fields an order and a quote share (same validation). */
export const OrderAmountFields = {
  amount: tokenAmount.optional(),
  fiatAmount: fiatAmount.optional(),
  businessUSDCFee: fee.optional(),
};

/** An order takes its amounts either from the body or from a quote, never both. */
export function checkAmounts(
  body: { amount?: number | undefined; fiatAmount?: number | undefined; quoteId?: string | undefined },
  ctx: z.RefinementCtx,
) {
  if (body.quoteId !== undefined) {
    if (body.amount !== undefined || body.fiatAmount !== undefined)
      ctx.addIssue({ code: "custom", message: QUOTE_OR_AMOUNT, path: [] });
  } else if (!exactlyOneAmount(body)) ctx.addIssue({ code: "custom", message: EXACTLY_ONE, path: [] });
}

const url = z.url({ message: "webhookURL must be a URL address" });
const bvn = z.string().regex(/^\d{11}$/, "bvn must be 11 digits");
/** A quote's id (from `POST /pub/v2/quote`); its rate and amounts replace amount/fiatAmount. */
const quoteId = z.string().min(1).max(64);

export const OnrampRequest = z
  .strictObject({
    fiatAmount: fiatAmount.optional(),
    amount: tokenAmount.optional(),
    currency: Currency,
    recipient: z.string().min(1),
    mint: z.string().min(1),
    chain: Chain,
    webhookURL: url.optional(),
    userExternalId: z.string().max(200).optional(),
    businessUSDCFee: fee.optional(),
    bvn: bvn.optional(),
    quoteId: quoteId.optional(),
  })
  .superRefine((body, ctx) => {
    checkAmounts(body, ctx);
    if (!isChainAddress(body.chain, body.recipient))
      ctx.addIssue({ code: "custom", message: `must be a ${body.chain} address`, path: ["recipient"] });
    if (!isChainMint(body.chain, body.mint))
      ctx.addIssue({ code: "custom", message: `must be a ${body.chain} token address`, path: ["mint"] });
  })
  .meta({ id: "OnRampDto" });
export type OnrampRequest = z.infer<typeof OnrampRequest>;

export const OfframpRequest = z
  .strictObject({
    accountNumber: z.string().min(1),
    bankCode: z.string().min(1),
    currency: Currency,
    mint: z.string().min(1),
    amount: tokenAmount.optional(),
    fiatAmount: fiatAmount.optional(),
    chain: Chain.default("SOLANA"),
    webhookURL: url.optional(),
    saveBeneficiary: z.boolean().optional(),
    description: z.string().max(200).optional(),
    businessUSDCFee: fee.optional(),
    bvn: bvn.optional(),
    quoteId: quoteId.optional(),
  })
  .superRefine((body, ctx) => {
    checkAmounts(body, ctx);
    if (!isChainMint(body.chain, body.mint))
      ctx.addIssue({ code: "custom", message: `must be a ${body.chain} token address`, path: ["mint"] });
  })
  .meta({ id: "OffRampDto" });
export type OfframpRequest = z.infer<typeof OfframpRequest>;

export const ObjectIdString = z.string().regex(/^[0-9a-f]{24}$/i, "id must be a mongodb id");
export const TransactionParams = z.strictObject({ id: ObjectIdString });
