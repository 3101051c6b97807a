import { z } from "zod";
import { DecimalString } from "../decimals.ts";
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

/**
 * A block number (EVM), a slot (Solana) or a logical time (TON): a non-negative integer, as a JSON
 * number or, for values past 2^53 (TON logical times), a string of digits.
 */
export const ChainPosition = z.union([
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  z
    .string()
    .max(30)
    .regex(/^\d{1,30}$/, "must be a non-negative integer"),
]);

export const ReindexParams = z.strictObject({ chain: Chain });
export const ReindexRequest = z.strictObject({ from: ChainPosition, to: ChainPosition });
export type ReindexRequest = z.infer<typeof ReindexRequest>;

/** The range accepted for scanning, as decimal strings; the scan runs after the answer. */
export const ReindexAcceptedDto = z
  .object({ chain: Chain, from: z.string(), to: z.string(), unit: z.enum(["block", "slot", "lt"]) })
  .meta({ id: "ReindexAcceptedDto" });
export type ReindexAcceptedDto = z.infer<typeof ReindexAcceptedDto>;
