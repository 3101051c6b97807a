import { z } from "zod";
import { isChainMint, MAX_ADDRESS_LENGTH } from "../addresses.ts";
import { Chain, Currency, TransactionType } from "../enums.ts";
import { boundedString } from "../text.ts";
import { type Amounts, checkAmounts, edgeAmounts, orderAmountFields, wireAmounts } from "./transactions.ts";

/** Offramp orders default to SOLANA; an onramp order names its chain, and so does its quote. */
export const quoteChain = (q: { chain?: Chain | undefined }): Chain => q.chain ?? "SOLANA";

const quoteFields = <A extends Amounts>(a: A) =>
  z.strictObject({
    type: TransactionType,
    currency: Currency,
    chain: Chain.optional(),
    mint: boundedString(MAX_ADDRESS_LENGTH, { min: 1 }),
    ...orderAmountFields(a),
  });

const checkQuote = (
  body: {
    type: TransactionType;
    chain?: Chain | undefined;
    mint: string;
    amount?: unknown;
    fiatAmount?: unknown;
  },
  ctx: z.core.$RefinementCtx,
) => {
  checkAmounts(body, ctx);
  if (body.type === "ON_RAMP" && body.chain === undefined) {
    ctx.addIssue({ code: "custom", message: "should not be empty", path: ["chain"] });
    return;
  }
  const chain = quoteChain(body);
  if (!isChainMint(chain, body.mint))
    ctx.addIssue({ code: "custom", message: `must be a ${chain} token address`, path: ["mint"] });
};

/** A locked rate: the numbers an order created from it with `quoteId` shows. */
export const QuoteRequest = quoteFields(edgeAmounts).superRefine(checkQuote).meta({ id: "QuoteRequestDto" });
export type QuoteRequest = z.infer<typeof QuoteRequest>;
/** The quote body as the gateway hands it to orders. */
export const QuoteOrder = quoteFields(wireAmounts).superRefine(checkQuote);
export type QuoteOrder = z.infer<typeof QuoteOrder>;

export const QuoteDto = z
  .object({
    id: z.string(),
    type: TransactionType,
    currency: Currency,
    chain: Chain,
    mint: z.string(),
    rate: z.number(),
    amount: z.number(),
    fiatAmount: z.number(),
    usdcAmount: z.number(),
    fee: z.number(),
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: "QuoteDto" });
export type QuoteDto = z.infer<typeof QuoteDto>;
