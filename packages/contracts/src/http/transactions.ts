import { z } from "zod";
import { isChainAddress, isChainMint } from "../addresses.ts";
import { nonNegativeAmount, positiveAmount } from "../decimals.ts";
import { Chain, Currency, OrderStatus, TransactionType } from "../enums.ts";

/** Every field is always present with its documented type; unknown-yet values are "" (DESIGN §9). */
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
  })
  .meta({ id: "TransactionInterfaceDto" });
export type TransactionDto = z.infer<typeof TransactionDto>;

const exactlyOneAmount = (body: { amount?: number | undefined; fiatAmount?: number | undefined }) =>
  (body.amount === undefined) !== (body.fiatAmount === undefined);
const EXACTLY_ONE = "exactly one of amount and fiatAmount must be given";

/** Token amounts are bounded to 18 decimals here; the token's own decimals are enforced by orders. */
const tokenAmount = positiveAmount(18);
const fiatAmount = positiveAmount(2);
const fee = nonNegativeAmount(6);
const url = z.url({ message: "webhookURL must be a URL address" });
const bvn = z.string().regex(/^\d{11}$/, "bvn must be 11 digits");

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
  })
  .superRefine((body, ctx) => {
    if (!exactlyOneAmount(body)) ctx.addIssue({ code: "custom", message: EXACTLY_ONE, path: [] });
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
  })
  .superRefine((body, ctx) => {
    if (!exactlyOneAmount(body)) ctx.addIssue({ code: "custom", message: EXACTLY_ONE, path: [] });
    if (!isChainMint(body.chain, body.mint))
      ctx.addIssue({ code: "custom", message: `must be a ${body.chain} token address`, path: ["mint"] });
  })
  .meta({ id: "OffRampDto" });
export type OfframpRequest = z.infer<typeof OfframpRequest>;

export const ObjectIdString = z.string().regex(/^[0-9a-f]{24}$/i, "id must be a mongodb id");
export const TransactionParams = z.strictObject({ id: ObjectIdString });
