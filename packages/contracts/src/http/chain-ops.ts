import { z } from "zod";
import { DecimalString, jsonDecimal } from "../decimals.ts";
import { Chain } from "../enums.ts";

/** One asset the treasury holds: its symbol and balance in token units (decimals applied). */
export const TreasuryAssetDto = z.object({ symbol: z.string(), balance: DecimalString });

/**
 * One chain's treasury, the wallet that pays onramps and refunds and receives consolidations.
 * `minimum` is TREASURY_MIN_<CHAIN> (null when unset); `low` says the stablecoin balance is below it.
 */
export const TreasuryChainDto = z.object({
  chain: Chain,
  address: z.string(),
  native: TreasuryAssetDto,
  stablecoin: TreasuryAssetDto.nullable(),
  minimum: DecimalString.nullable(),
  low: z.boolean(),
});
export type TreasuryChainDto = z.infer<typeof TreasuryChainDto>;

export const TreasuryDto = z.object({ data: z.array(TreasuryChainDto) }).meta({ id: "TreasuryDto" });
export type TreasuryDto = z.infer<typeof TreasuryDto>;

/** A block number (EVM), a slot (Solana) or a logical time (TON), as its decimal digits. */
export const ChainPosition = z
  .string()
  .max(30)
  .regex(/^\d{1,30}$/, "must be a non-negative integer");

/**
 * At the edge a position is a JSON integer (read from its source text, so TON logical times past
 * 2^53 survive) or a string of digits; either way it is handed on as its digits.
 */
const ChainPositionInput = z.union([jsonDecimal(0, "nonNegative"), ChainPosition]);

export const ReindexParams = z.strictObject({ chain: Chain });
export const ReindexRequest = z.strictObject({ from: ChainPositionInput, to: ChainPositionInput });
/** What chain-watcher is asked: the chain and the range as digits. */
export const ReindexCommand = z.object({ chain: Chain, from: ChainPosition, to: ChainPosition });
export type ReindexCommand = z.infer<typeof ReindexCommand>;

/** The range accepted for scanning, as decimal strings; the scan runs after the answer. */
export const ReindexAcceptedDto = z
  .object({ chain: Chain, from: z.string(), to: z.string(), unit: z.enum(["block", "slot", "lt"]) })
  .meta({ id: "ReindexAcceptedDto" });
export type ReindexAcceptedDto = z.infer<typeof ReindexAcceptedDto>;
