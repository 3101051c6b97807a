import { CHAINS, type Chain } from "@ramp/contracts";
import { BaseConfig, defaultSecretPart, envInt, loadConfig, type SandboxPart } from "@ramp/runtime";
import { Mnemonic } from "ethers";
import { z } from "zod";
import { CHAIN_OFF, type ChainSettings, resolveChainSettings } from "./chain-settings.ts";
import { NETWORKS } from "./networks.ts";

/**
 * The well-known development mnemonic (Hardhat/Anvil's). Only ever used when RAMP_SANDBOX=true on a
 * non-mainnet network: anything it holds is public knowledge.
 */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";

type PerChain<P extends string, T extends z.ZodType> = { [K in Chain as `${P}_${K}`]: T };
function perChain<P extends string, T extends z.ZodType>(prefix: P, schema: T): PerChain<P, T> {
  return Object.fromEntries(CHAINS.map((c) => [`${prefix}_${c}`, schema])) as PerChain<P, T>;
}

const Decimal = z.string().regex(/^\d+(\.\d+)?$/, "must be a non-negative decimal");
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));
const optionalInt = z.coerce.number().int().nonnegative().optional();

export const ChainWatcherConfig = BaseConfig.extend({
  CHAIN_NETWORK: z.enum(NETWORKS).default("local"),
  /** Custody seed; required outside the sandbox, never logged. */
  HD_MNEMONIC: optionalString,
  ...perChain("RPC_URL", optionalString),
  ...perChain("STABLECOIN", optionalString),
  ...perChain("STABLECOIN_DECIMALS", optionalInt),
  ...perChain("CONFIRMATIONS", optionalInt),
  POLL_INTERVAL_MS: envInt(2_000),
  /** Stablecoin balance below which a chain's treasury counts as low (token units); unset: never low. */
  ...perChain("TREASURY_MIN", Decimal.optional()),
  /** A settled deposit address holding this much or less of a token is left as it is (token units). */
  ...perChain("SWEEP_MIN", Decimal.default("0")),
  /** How often treasury balances are read for the `ramp_treasury_balance` gauge. */
  TREASURY_CHECK_INTERVAL_MS: envInt(60_000),
  /** How long a replica's turn at polling a chain outlives its last renewal; another takes over after it. */
  LEASE_TTL_MS: envInt(6_000),
  /** Largest block range one eth_getLogs call covers. */
  EVM_LOG_CHUNK_BLOCKS: envInt(2_000),
  /** Blocks scanned back from the safe head when a chain has no cursor yet (first start). */
  EVM_START_LOOKBACK_BLOCKS: envInt(1_000),
  /** USD per SOL, for pricing Solana token-account rent; unset → the sandbox's fixed price. */
  SOL_USD_PRICE: Decimal.optional(),
  /** Fixed USD prices of non-stablecoin tokens: `CHAIN:mint=price,...` (the documented PriceFeed table). */
  TOKEN_USD_PRICES: z.string().default(""),
  /** How non-stablecoin onramps are delivered: the sandbox swap provider (default in sandbox) or none. */
  SWAP_PROVIDER: z.enum(["sandbox", "none"]).optional(),
  /** Sandbox only: USD price of any token neither the stablecoin nor in TOKEN_USD_PRICES. */
  SANDBOX_TOKEN_USD_PRICE: Decimal.default("1"),
  /** A transfer command delivered this many times without being prepared is failed for good. */
  TRANSFER_MAX_ATTEMPTS: envInt(20),
}).superRefine((cfg, ctx) => {
  if (cfg.HD_MNEMONIC && !Mnemonic.isValidMnemonic(cfg.HD_MNEMONIC)) {
    // The value itself is never echoed: it is a secret.
    ctx.addIssue({ code: "custom", path: ["HD_MNEMONIC"], message: "is not a valid BIP-39 mnemonic" });
  }
  // Production mode names the dev mnemonic among its refused parts; this covers a sandbox on mainnet.
  if (
    cfg.RAMP_SANDBOX &&
    cfg.CHAIN_NETWORK === "mainnet" &&
    (cfg.HD_MNEMONIC ?? DEV_MNEMONIC) === DEV_MNEMONIC
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["HD_MNEMONIC"],
      message: "the public dev mnemonic is refused on mainnet",
    });
  }
});
export type ChainWatcherConfig = z.infer<typeof ChainWatcherConfig>;

/** Sandbox price of SOL; only production mode insists on an operator's figure. */
const SANDBOX_SOL_USD_PRICE = "150";

/** Everything chain-watcher would run on that production mode refuses. */
export function chainWatcherSandboxParts(
  config: ChainWatcherConfig,
  settings: Record<Chain, ChainSettings>,
): SandboxPart[] {
  const parts = defaultSecretPart("HD_MNEMONIC", config.HD_MNEMONIC, [DEV_MNEMONIC]);
  for (const s of Object.values(settings)) {
    if (s.disabled || s.rpcUrl) continue;
    parts.push({
      name: `RPC_URL_${s.chain}`,
      reason: `not set, so ${s.chain} would run on the sandbox chain adapter (set an endpoint, or "${CHAIN_OFF}" to switch the chain off)`,
    });
  }
  if (config.SWAP_PROVIDER === "sandbox") {
    parts.push({ name: "SWAP_PROVIDER", reason: `"sandbox" is the sandbox swap provider` });
  }
  if (!settings.SOLANA.disabled && config.SOL_USD_PRICE === undefined) {
    parts.push({
      name: "SOL_USD_PRICE",
      reason: `not set, so Solana token-account rent is priced at the sandbox's fixed ${SANDBOX_SOL_USD_PRICE} USD`,
    });
  }
  return parts;
}

export const loadChainWatcherConfig = (env: Record<string, string | undefined>) =>
  loadConfig(ChainWatcherConfig, env, (c) => chainWatcherSandboxParts(c, resolveChainSettings(c)));

export function solUsdPrice(config: ChainWatcherConfig): string {
  return config.SOL_USD_PRICE ?? SANDBOX_SOL_USD_PRICE;
}

/** The custody seed in force: the configured one, else (sandbox only, enforced above) the dev mnemonic. */
export function custodyMnemonic(config: ChainWatcherConfig): string {
  return config.HD_MNEMONIC ?? DEV_MNEMONIC;
}
