import type { Chain } from "@ramp/contracts";

/**
 * Per-network chain defaults (stablecoins, decimals, RPC endpoints and confirmation depths
 * live in config, never in code). Every value here can be overridden per chain through the environment
 * (`RPC_URL_<CHAIN>`, `STABLECOIN_<CHAIN>`, `STABLECOIN_DECIMALS_<CHAIN>`, `CONFIRMATIONS_<CHAIN>`).
 *
 * `local` deliberately has no RPC URLs: a local chain without `RPC_URL_<CHAIN>` runs on the sandbox
 * adapter, so nothing calls the internet at start-up or in tests. Its stablecoins are the mainnet
 * addresses, so sandbox orders can use the same mints integrators will use in production.
 */
export const NETWORKS = ["mainnet", "testnet", "local"] as const;
export type Network = (typeof NETWORKS)[number];

export interface StablecoinDefault {
  address: string;
  decimals: number;
}

export interface ChainDefaults {
  rpcUrl?: string;
  stablecoin?: StablecoinDefault;
  confirmations: number;
}

const USDC = {
  SOLANA: { address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 },
  ETHEREUM: { address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 },
  BASE: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6 },
  // Binance-Peg USDC on BSC has 18 decimals, unlike USDC elsewhere.
  BSC: { address: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", decimals: 18 },
  MONAD: { address: "0x754704Bc059F8C67012fEd69BC8A327a5aafb603", decimals: 6 },
} as const satisfies Partial<Record<Chain, StablecoinDefault>>;

/** Arc's USDC is the native gas token, exposed through an ERC-20 interface with 6 decimals. */
const ARC_USDC: StablecoinDefault = { address: "0x3600000000000000000000000000000000000000", decimals: 6 };
const TON_USDT: StablecoinDefault = {
  address: "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs",
  decimals: 6,
};

export const NETWORK_DEFAULTS: Record<Network, Record<Chain, ChainDefaults>> = {
  mainnet: {
    SOLANA: { rpcUrl: "https://api.mainnet-beta.solana.com", stablecoin: USDC.SOLANA, confirmations: 32 },
    TON: { rpcUrl: "https://toncenter.com/api/v2/jsonRPC", stablecoin: TON_USDT, confirmations: 1 },
    ETHEREUM: { rpcUrl: "https://ethereum-rpc.publicnode.com", stablecoin: USDC.ETHEREUM, confirmations: 12 },
    BASE: { rpcUrl: "https://mainnet.base.org", stablecoin: USDC.BASE, confirmations: 12 },
    BSC: { rpcUrl: "https://bsc-dataseed.bnbchain.org", stablecoin: USDC.BSC, confirmations: 15 },
    MONAD: { rpcUrl: "https://rpc.monad.xyz", stablecoin: USDC.MONAD, confirmations: 3 },
    // Arc has no mainnet yet: the operator must supply RPC_URL_ARC and STABLECOIN_ARC.
    ARC: { confirmations: 1 },
  },
  testnet: {
    SOLANA: {
      rpcUrl: "https://api.devnet.solana.com",
      stablecoin: { address: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", decimals: 6 },
      confirmations: 32,
    },
    TON: { rpcUrl: "https://testnet.toncenter.com/api/v2/jsonRPC", confirmations: 1 },
    ETHEREUM: {
      rpcUrl: "https://ethereum-sepolia-rpc.publicnode.com",
      stablecoin: { address: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238", decimals: 6 },
      confirmations: 3,
    },
    BASE: {
      rpcUrl: "https://sepolia.base.org",
      stablecoin: { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 },
      confirmations: 3,
    },
    BSC: {
      rpcUrl: "https://bsc-testnet-dataseed.bnbchain.org",
      stablecoin: { address: "0x64544969ed7EBf5f083679233325356EbE738930", decimals: 18 },
      confirmations: 3,
    },
    MONAD: {
      rpcUrl: "https://testnet-rpc.monad.xyz",
      stablecoin: { address: "0xf817257fed379853cDe0fa4F97AB987181B1E5Ea", decimals: 6 },
      confirmations: 2,
    },
    ARC: { rpcUrl: "https://rpc.testnet.arc.network", stablecoin: ARC_USDC, confirmations: 1 },
  },
  local: {
    SOLANA: { stablecoin: USDC.SOLANA, confirmations: 1 },
    TON: { stablecoin: TON_USDT, confirmations: 1 },
    ETHEREUM: { stablecoin: USDC.ETHEREUM, confirmations: 1 },
    BASE: { stablecoin: USDC.BASE, confirmations: 1 },
    BSC: { stablecoin: USDC.BSC, confirmations: 1 },
    MONAD: { stablecoin: USDC.MONAD, confirmations: 1 },
    ARC: { stablecoin: ARC_USDC, confirmations: 1 },
  },
};

/** Decimals assumed for a non-stablecoin token on the sandbox adapter, by family (native-token precision). */
export const SANDBOX_TOKEN_DECIMALS = { evm: 18, solana: 9, ton: 9 } as const;
