import type { Chain } from "@ramp/contracts";
import type { PreparedTransfer, TransferStatus } from "../chains/adapter.ts";
import { TransferRejected } from "../chains/errors.ts";
import type { ChainRegistry } from "../chains/registry.ts";
import type { SwapProvider } from "../swaps/swap-provider.ts";
import type { OutboundTransfer, SweepStep } from "./transfer-store.ts";

/** What moves tokens for one outbound request: a plain transfer of the stablecoin, or a swap into `mint`. */
export interface Sender {
  prepare(cmd: OutboundTransfer): Promise<PreparedTransfer>;
  broadcast(prepared: PreparedTransfer): Promise<void>;
  status(signature: string): Promise<TransferStatus>;
}

export interface SenderDeps {
  registry: ChainRegistry;
  swaps: SwapProvider | undefined;
  isStablecoin: (chain: Chain, mint: string) => boolean;
}

/**
 * Picks the sender by what is delivered (or, for consolidation, by its step), so the executor and
 * tracker stay one pipeline for every outbound transaction.
 */
export function createSenders(deps: SenderDeps) {
  return {
    for(chain: Chain, mint: string, step?: SweepStep): Sender {
      if (step) {
        const adapter = deps.registry.adapter(chain);
        const custody = adapter.custody;
        if (!custody) throw new Error(`${chain} has no custody operations`);
        return {
          prepare: (cmd) =>
            step.kind === "gas"
              ? custody.prepareNative(cmd)
              : custody.prepareSweep({ ...cmd, index: step.index }),
          broadcast: (p) => adapter.broadcast(p),
          status: (sig) => adapter.transferStatus(sig),
        };
      }
      if (deps.isStablecoin(chain, mint)) {
        const adapter = deps.registry.adapter(chain);
        return {
          prepare: (cmd) => adapter.prepareTransfer(cmd),
          broadcast: (p) => adapter.broadcast(p),
          status: (sig) => adapter.transferStatus(sig),
        };
      }
      const swaps = deps.swaps;
      if (!swaps) {
        const refuse = async (): Promise<never> => {
          throw new TransferRejected(`no swap provider is configured to deliver ${mint} on ${chain}`);
        };
        return { prepare: refuse, broadcast: refuse, status: async () => "failed" };
      }
      return {
        prepare: (cmd) => swaps.prepareSwap(cmd),
        broadcast: (p) => swaps.broadcast(chain, p),
        status: (sig) => swaps.swapStatus(chain, sig),
      };
    },
  };
}
export type Senders = ReturnType<typeof createSenders>;
