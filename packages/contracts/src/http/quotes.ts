import { z } from "zod";
import { isChainMint } from "../addresses.ts";
import { Chain, Currency, TransactionType } from "../enums.ts";
import { checkAmounts, OrderAmountFields } from "./transactions.ts";

/** Offramp orders default to SOLANA; an onramp order names its chain, and so does its quote. */
export const quoteChain = (q: { chain?: Chain | undefined }): Chain => q.chain ?? "SOLANA";

/** A locked rate: the numbers an order created from it with `quoteId` shows. */
export const QuoteRequest = z
  .strictObject({
    type: TransactionType,
    currency: Currency,
    chain: Chain.optional(),
    mint: z.string().min(1),
    ...OrderAmountFields,
  })
  .superRefine((body, ctx) => {
    checkAmounts(body, ctx);
    if (body.type === "ON_RAMP" && body.chain === undefined) {
      ctx.addIssue({ code: "custom", message: "should not be empty", path: ["chain"] });
      return;
    }
    const chain = quoteChain(body);
    if (!isChainMint(chain, body.mint))
      ctx.addIssue({ code: "custom", message: `must be a ${chain} token address`, path: ["mint"] });
  })
  .meta({ id: "QuoteRequestDto" });
export type QuoteRequest = z.infer<typeof QuoteRequest>;

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
