import { CHAINS, type Chain, unavailable } from "@ramp/contracts";
import type { Logger } from "@ramp/runtime";
import type { ChainSettings } from "../chain-settings.ts";
import type { ChainWatcherConfig } from "../config.ts";
import type { ChainAdapter } from "./adapter.ts";
import { EvmAdapter } from "./evm/adapter.ts";
import { EvmKeyring } from "./evm/hd.ts";
import { FAMILIES } from "./families.ts";
import { SandboxAdapter } from "./sandbox/sandbox-adapter.ts";
import { seedFromMnemonic } from "./shared/seed.ts";

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
  const keyring = new EvmKeyring(mnemonic);
  const runtimes = new Map<Chain, ChainRuntime>();
  for (const chain of CHAINS) {
    const s = settings[chain];
    runtimes.set(chain, await buildOne(config, s, mnemonic, keyring));
  }
  for (const r of runtimes.values()) {
    const treasury =
      r.adapter && "treasuryAddress" in r.adapter && typeof r.adapter.treasuryAddress === "string"
        ? r.adapter.treasuryAddress
        : undefined;
    log.info({ chain: r.chain, mode: r.mode, reason: r.reason, treasury }, "chain configured");
  }
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
      for (const r of runtimes.values()) if (r.adapter instanceof EvmAdapter) r.adapter.destroy();
    },
  };
}

async function buildOne(
  config: ChainWatcherConfig,
  s: ChainSettings,
  mnemonic: string,
  keyring: EvmKeyring,
): Promise<ChainRuntime> {
  const base = { chain: s.chain, settings: s, reason: undefined };
  if (s.disabled) return unavailableRuntime(s, `switched off by RPC_URL_${s.chain}=off`);
  if (s.family === "evm") {
    const deriveAddress = async (i: number) => keyring.depositAddress(i);
    if (s.rpcUrl) {
      const adapter = new EvmAdapter({
        chain: s.chain,
        rpcUrl: s.rpcUrl,
        keyring,
        confirmations: s.confirmations,
        stablecoin: s.stablecoin?.address,
        logChunkBlocks: config.EVM_LOG_CHUNK_BLOCKS,
        startLookbackBlocks: config.EVM_START_LOOKBACK_BLOCKS,
      });
      return { ...base, mode: "rpc", adapter, deriveAddress };
    }
    if (!config.RAMP_SANDBOX) return unavailableRuntime(s, `RPC_URL_${s.chain} is not set`);
    const adapter = new SandboxAdapter({
      chain: s.chain,
      derive: (i) => keyring.depositAddress(i),
      stablecoin: s.stablecoin,
    });
    return { ...base, mode: "sandbox", adapter, deriveAddress };
  }

  const family = FAMILIES[s.family];
  // The seed once per chain, not once per address: deriving it is a PBKDF2 run of 2,048 rounds.
  const seed = seedFromMnemonic(mnemonic);
  const derive = (i: number) => family.derive(seed, i);
  const deriveAddress = async (i: number) => derive(i);
  if (s.rpcUrl) {
    const adapter = family.adapter({
      chain: s.chain,
      rpcUrl: s.rpcUrl,
      mnemonic,
      confirmations: s.confirmations,
      stablecoin: s.stablecoin,
    });
    return { ...base, mode: "rpc", adapter, deriveAddress };
  }
  if (!config.RAMP_SANDBOX) return unavailableRuntime(s, `RPC_URL_${s.chain} is not set`);
  const adapter = new SandboxAdapter({ chain: s.chain, derive, stablecoin: s.stablecoin });
  return { ...base, mode: "sandbox", adapter, deriveAddress };
}
