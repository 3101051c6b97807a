import { z } from "zod";
import { isChainAddress, isChainMint, MAX_ADDRESS_LENGTH } from "../addresses.ts";
import { DecimalString, EDGE_DECIMALS, jsonDecimal } from "../decimals.ts";
import { Chain, Currency, OrderStatus, TransactionType } from "../enums.ts";
import { boundedString, TEXT_MAX } from "../text.ts";
import { webhookUrl } from "../webhook-urls.ts";

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

const exactlyOneAmount = (body: { amount?: unknown; fiatAmount?: unknown }) =>
  (body.amount === undefined) !== (body.fiatAmount === undefined);
const EXACTLY_ONE = "exactly one of amount and fiatAmount must be given";
const QUOTE_OR_AMOUNT = "quoteId must not be given together with amount or fiatAmount";

/** An order takes its amounts either from the body or from a quote, never both; a quote takes one amount. */
export function checkAmounts(
  body: { amount?: unknown; fiatAmount?: unknown; quoteId?: string | undefined },
  ctx: z.core.$RefinementCtx,
) {
  if (body.quoteId !== undefined) {
    if (body.amount !== undefined || body.fiatAmount !== undefined)
      ctx.addIssue({ code: "custom", message: QUOTE_OR_AMOUNT, path: [] });
  } else if (!exactlyOneAmount(body)) ctx.addIssue({ code: "custom", message: EXACTLY_ONE, path: [] });
}

/**
 * Amount fields as a client sends them (JSON numbers, read by the edge's decimal policy) and as
 * services pass them on (canonical decimal strings). Both give the same decimal string.
 */
export const edgeAmounts = {
  token: jsonDecimal(EDGE_DECIMALS.token, "positive"),
  fiat: jsonDecimal(EDGE_DECIMALS.fiat, "positive"),
  fee: jsonDecimal(EDGE_DECIMALS.usdFee, "nonNegative"),
};
export const wireAmounts = { token: DecimalString, fiat: DecimalString, fee: DecimalString };
export type Amounts = typeof edgeAmounts | typeof wireAmounts;

/** The amount fields an order and a quote share (same validation). */
export const orderAmountFields = <A extends Amounts>(a: A) => ({
  amount: a.token.optional(),
  fiatAmount: a.fiat.optional(),
  businessUSDCFee: a.fee.optional(),
});

/** A quote's id (from `POST /pub/v2/quote`); its rate and amounts replace amount/fiatAmount. */
const quoteId = boundedString(TEXT_MAX.identifier, { min: 1 });

/** A recipient or token address of any chain; `checkOnramp`/`checkOfframp` check it against the chain. */
const address = boundedString(MAX_ADDRESS_LENGTH, { min: 1 });

const bvn = z
  .string()
  .max(11, { abort: true })
  .regex(/^\d{11}$/, "bvn must be 11 digits");

const onrampFields = <A extends Amounts>(a: A) =>
  z.strictObject({
    fiatAmount: a.fiat.optional(),
    amount: a.token.optional(),
    currency: Currency,
    recipient: address,
    mint: address,
    chain: Chain,
    webhookURL: webhookUrl("webhookURL").optional(),
    userExternalId: boundedString(TEXT_MAX.freeText).optional(),
    businessUSDCFee: a.fee.optional(),
    bvn: bvn.optional(),
    quoteId: quoteId.optional(),
  });

const checkOnramp = (
  body: {
    amount?: unknown;
    fiatAmount?: unknown;
    quoteId?: string | undefined;
    chain: Chain;
    recipient: string;
    mint: string;
  },
  ctx: z.core.$RefinementCtx,
) => {
  checkAmounts(body, ctx);
  if (!isChainAddress(body.chain, body.recipient))
    ctx.addIssue({ code: "custom", message: `must be a ${body.chain} address`, path: ["recipient"] });
  if (!isChainMint(body.chain, body.mint))
    ctx.addIssue({ code: "custom", message: `must be a ${body.chain} token address`, path: ["mint"] });
};

export const OnrampRequest = onrampFields(edgeAmounts).superRefine(checkOnramp).meta({ id: "OnRampDto" });
export type OnrampRequest = z.infer<typeof OnrampRequest>;
/** The onramp body as the gateway hands it to orders. */
export const OnrampOrder = onrampFields(wireAmounts).superRefine(checkOnramp);

const offrampFields = <A extends Amounts>(a: A) =>
  z.strictObject({
    accountNumber: boundedString(TEXT_MAX.identifier, { min: 1 }),
    bankCode: boundedString(TEXT_MAX.code, { min: 1 }),
    currency: Currency,
    mint: address,
    amount: a.token.optional(),
    fiatAmount: a.fiat.optional(),
    chain: Chain.default("SOLANA"),
    webhookURL: webhookUrl("webhookURL").optional(),
    saveBeneficiary: z.boolean().optional(),
    description: boundedString(TEXT_MAX.freeText).optional(),
    businessUSDCFee: a.fee.optional(),
    bvn: bvn.optional(),
    quoteId: quoteId.optional(),
  });

const checkOfframp = (
  body: { amount?: unknown; fiatAmount?: unknown; quoteId?: string | undefined; chain: Chain; mint: string },
  ctx: z.core.$RefinementCtx,
) => {
  checkAmounts(body, ctx);
  if (!isChainMint(body.chain, body.mint))
    ctx.addIssue({ code: "custom", message: `must be a ${body.chain} token address`, path: ["mint"] });
};

export const OfframpRequest = offrampFields(edgeAmounts).superRefine(checkOfframp).meta({ id: "OffRampDto" });
export type OfframpRequest = z.infer<typeof OfframpRequest>;
/** The offramp body as the gateway hands it to orders. */
export const OfframpOrder = offrampFields(wireAmounts).superRefine(checkOfframp);

// No regex flags: OpenAPI emits only the source, so `/i` would become a pattern rejecting uppercase ids.
export const ObjectIdString = z
  .string()
  .max(24, { abort: true })
  .regex(/^[0-9a-fA-F]{24}$/, "id must be a mongodb id");
export const TransactionParams = z.strictObject({ id: ObjectIdString });
