import type { Chain, TreasuryChainDto } from "@ramp/contracts";
import { type Logger, type Stoppable, treasuryBalance } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { ChainSettings } from "../chain-settings.ts";
import type { ChainRegistry } from "../chains/registry.ts";
import { repeatEvery } from "../watcher/repeat.ts";

/** The settlement stablecoin's symbol: USDT on TON, USDC elsewhere (the network defaults). */
const stablecoinSymbol = (s: ChainSettings) => (s.family === "ton" ? "USDT" : "USDC");

/**
 * Each real chain's treasury against TREASURY_MIN_<CHAIN>. `low` compares the stablecoin, the asset
 * onramps and refunds pay out; chains on the sandbox adapter or switched off have no treasury to show.
 */
export function createTreasuryReader(deps: {
  registry: ChainRegistry;
  minimum: (chain: Chain) => string | undefined;
}) {
  async function readOne(chain: Chain): Promise<TreasuryChainDto | undefined> {
    const runtime = deps.registry.get(chain);
    const custody = runtime.adapter?.custody;
    if (!custody) return undefined;
    const coin = runtime.settings.stablecoin;
    const [native, stable] = await Promise.all([
      custody.nativeBalance(custody.treasuryAddress),
      coin ? custody.tokenBalance(custody.treasuryAddress, coin.address) : undefined,
    ]);
    const minimum = deps.minimum(chain) ?? null;
    return {
      chain,
      address: custody.treasuryAddress,
      native: { symbol: custody.nativeSymbol, balance: native },
      stablecoin:
        stable === undefined ? null : { symbol: stablecoinSymbol(runtime.settings), balance: stable },
      minimum,
      low: minimum !== null && stable !== undefined && new Decimal(stable).lt(minimum),
    };
  }

  async function read(): Promise<TreasuryChainDto[]> {
    const chains = deps.registry.all().filter((r) => r.adapter?.custody);
    const out = await Promise.all(chains.map((r) => readOne(r.chain)));
    const data = out.filter((t): t is TreasuryChainDto => t !== undefined);
    for (const t of data) {
      treasuryBalance.set({ chain: t.chain, asset: t.native.symbol }, Number(t.native.balance));
      if (t.stablecoin)
        treasuryBalance.set({ chain: t.chain, asset: t.stablecoin.symbol }, Number(t.stablecoin.balance));
    }
    return data;
  }

  return { read };
}
export type TreasuryReader = ReturnType<typeof createTreasuryReader>;

/**
 * Reads the treasuries every `intervalMs` so the gauge stays current without anyone asking, and
 * raises (or clears) the `treasury-low` exception from each reading. A crossing is logged once.
 */
export function startTreasuryWatch(
  reader: TreasuryReader,
  intervalMs: number,
  log: Logger,
  signalLow: (t: TreasuryChainDto) => Promise<void>,
): Stoppable {
  const lowNow = new Set<Chain>();
  return repeatEvery(
    intervalMs,
    async () => {
      for (const t of await reader.read()) {
        if (t.low && !lowNow.has(t.chain)) {
          lowNow.add(t.chain);
          log.warn({ chain: t.chain, balance: t.stablecoin?.balance, minimum: t.minimum }, "treasury is low");
        } else if (!t.low && lowNow.delete(t.chain)) {
          log.info({ chain: t.chain, balance: t.stablecoin?.balance }, "treasury is back above its minimum");
        }
        await signalLow(t);
      }
    },
    (err) => log.warn({ err }, "treasury balances could not be read; will retry"),
  );
}
