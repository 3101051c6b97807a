import {
  CHAINS,
  type Chain,
  type ChainFamily,
  chainFamily,
  isChainMint,
  normalizeAddress,
} from "@ramp/contracts";
import { ConfigError } from "@ramp/runtime";
import { NETWORK_DEFAULTS, type Network, type StablecoinDefault } from "./networks.ts";

/** One chain's effective settings: network defaults with the per-chain environment overrides applied. */
export interface ChainSettings {
  chain: Chain;
  family: ChainFamily;
  /** Undefined on `local` unless RPC_URL_<CHAIN> is set: the chain then runs on the sandbox adapter. */
  rpcUrl: string | undefined;
  /** `RPC_URL_<CHAIN>=off`: the operator does not serve this chain at all (503 on use). */
  disabled: boolean;
  /** The settlement stablecoin, address normalised; undefined when the network has none configured. */
  stablecoin: StablecoinDefault | undefined;
  confirmations: number;
}

/** The RPC_URL_<CHAIN> value that switches a chain off instead of pointing it at an endpoint. */
export const CHAIN_OFF = "off";

/** The per-chain part of the environment (config.ts's schema parses it; settings sit below config). */
export type ChainEnv = { CHAIN_NETWORK: Network } & Partial<
  Record<`RPC_URL_${Chain}` | `STABLECOIN_${Chain}`, string> &
    Record<`STABLECOIN_DECIMALS_${Chain}` | `CONFIRMATIONS_${Chain}`, number>
>;

export function resolveChainSettings(config: ChainEnv): Record<Chain, ChainSettings> {
  const out = {} as Record<Chain, ChainSettings>;
  for (const chain of CHAINS) {
    const defaults = NETWORK_DEFAULTS[config.CHAIN_NETWORK][chain];
    const stableAddress = config[`STABLECOIN_${chain}`] ?? defaults.stablecoin?.address;
    if (stableAddress !== undefined && !isChainMint(chain, stableAddress)) {
      throw new ConfigError(`STABLECOIN_${chain}: not a token address on ${chain}`);
    }
    const decimals = config[`STABLECOIN_DECIMALS_${chain}`] ?? defaults.stablecoin?.decimals ?? 6;
    const rpcEnv = config[`RPC_URL_${chain}`];
    const disabled = rpcEnv === CHAIN_OFF;
    out[chain] = {
      chain,
      family: chainFamily(chain),
      disabled,
      // Only the environment may point a local chain at an RPC endpoint.
      rpcUrl: disabled
        ? undefined
        : (rpcEnv ?? (config.CHAIN_NETWORK === "local" ? undefined : defaults.rpcUrl)),
      stablecoin: stableAddress ? { address: normalizeAddress(chain, stableAddress), decimals } : undefined,
      confirmations: Math.max(1, config[`CONFIRMATIONS_${chain}`] ?? defaults.confirmations),
    };
  }
  return out;
}
