/** Addresses the e2e tests configure as settlement stablecoins (any valid address works in sandbox). */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const ETH_USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
export const SOL_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
export const TON_USDT_FRIENDLY = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs";
/** Deliberately not an address of the dev mnemonic (those are the service's own deposit addresses). */
export const EVM_RECIPIENT = "0x1234567890abcdef1234567890abcdef12345678";
export const SOL_RECIPIENT = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

/**
 * The body of a 10 USDC offramp on Base to a sandbox bank account (one that pays at once, unless the
 * account number given is one of the sandbox's failing ones).
 */
export const baseOfframpBody = (accountNumber = "0123456789") => ({
  accountNumber,
  bankCode: "000013",
  currency: "NGN",
  mint: BASE_USDC,
  chain: "BASE",
  amount: 10,
});

export const sandboxChainEnv = {
  STABLECOIN_BASE: BASE_USDC,
  STABLECOIN_ETHEREUM: ETH_USDC,
  STABLECOIN_SOLANA: SOL_USDC,
  STABLECOIN_TON: TON_USDT_FRIENDLY,
};
