import { CHAINS, type Chain, type ChainFamily, unavailable } from "@ramp/contracts";
import type { Logger } from "@ramp/runtime";
import type { ChainSettings } from "../chain-settings.ts";
import type { ChainWatcherConfig } from "../config.ts";
import type { ChainAdapter } from "./adapter.ts";
import { FAMILIES, type Family } from "./families.ts";
import { createSandboxAdapter } from "./sandbox/sandbox-adapter.ts";

export type ChainMode = "rpc" | "sandbox" | "unavailable";

/** One chain as this process runs it: its settings, its adapter (if any) and its address derivation. */
export interface ChainRuntime {
  chain: Chain;
  settings: ChainSettings;
  mode: ChainMode;
  adapter: ChainAdapter | undefined;
  /** Why the chain cannot serve requests (mode "unavailable"); shown in 503 replies and at start-up. */
  reason: string | undefined;
  deriveAddress: ((index: number) => Promise<string>) | undefined;
}

export interface ChainRegistry {
  get(chain: Chain): ChainRuntime;
  /** The adapter, or 503 UNAVAILABLE naming why the chain is not served. */
  adapter(chain: Chain): ChainAdapter;
  derive(chain: Chain, index: number): Promise<string>;
  all(): ChainRuntime[];
  stop(): void;
}

const unavailableRuntime = (settings: ChainSettings, reason: string): ChainRuntime => ({
  chain: settings.chain,
  settings,
  mode: "unavailable",
  adapter: undefined,
  reason,
  deriveAddress: undefined,
});

/**
 * Picks each chain's adapter: switched off → unavailable; an RPC URL → the family's real adapter; none
 * and RAMP_SANDBOX → the sandbox adapter (no network); otherwise the chain is unavailable (503 on use,
 * never a fake address; production mode refuses to start in that case anyway).
 */
export async function buildChainRegistry(
  config: ChainWatcherConfig,
  settings: Record<Chain, ChainSettings>,
  mnemonic: string,
  log: Logger,
): Promise<ChainRegistry> {
  const families = new Map<ChainFamily, Family>();
  const familyOf = (f: ChainFamily) => {
    const known = families.get(f);
    if (known) return known;
    const family = FAMILIES[f](mnemonic);
    families.set(f, family);
    return family;
  };
  const runtimes = new Map<Chain, ChainRuntime>();
  for (const chain of CHAINS) {
    const s = settings[chain];
    runtimes.set(
      chain,
      s.disabled
        ? unavailableRuntime(s, `switched off by RPC_URL_${chain}=off`)
        : buildOne(config, s, familyOf(s.family)),
    );
  }
  for (const r of runtimes.values())
    log.info(
      { chain: r.chain, mode: r.mode, reason: r.reason, treasury: r.adapter?.treasuryAddress },
      "chain configured",
    );
  const get = (chain: Chain) => runtimes.get(chain)!;
  return {
    get,
    adapter(chain) {
      const r = get(chain);
      if (!r.adapter) throw unavailable(`${chain} is not available: ${r.reason}`);
      return r.adapter;
    },
    async derive(chain, index) {
      const r = get(chain);
      if (!r.deriveAddress) throw unavailable(`${chain} is not available: ${r.reason}`);
      return r.deriveAddress(index);
    },
    all: () => [...runtimes.values()],
    stop() {
      for (const r of runtimes.values()) r.adapter?.close?.();
    },
  };
}

function buildOne(config: ChainWatcherConfig, s: ChainSettings, family: Family): ChainRuntime {
  const base = { chain: s.chain, settings: s, reason: undefined };
  const derive = (i: number) => family.derive(i);
  const deriveAddress = async (i: number) => derive(i);
  if (s.rpcUrl) {
    const adapter = family.adapter({
      chain: s.chain,
      rpcUrl: s.rpcUrl,
      confirmations: s.confirmations,
      stablecoin: s.stablecoin,
      logChunkBlocks: config.EVM_LOG_CHUNK_BLOCKS,
      startLookbackBlocks: config.EVM_START_LOOKBACK_BLOCKS,
    });
    return { ...base, mode: "rpc", adapter, deriveAddress };
  }
  if (!config.RAMP_SANDBOX) return unavailableRuntime(s, `RPC_URL_${s.chain} is not set`);
  const adapter = createSandboxAdapter({ chain: s.chain, derive, stablecoin: s.stablecoin });
  return { ...base, mode: "sandbox", adapter, deriveAddress };
}
