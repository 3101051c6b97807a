import type { Chain, TransferCommand } from "@ramp/contracts";
import type { PreparedTransfer, TransferStatus } from "../chains/adapter.ts";
import { TransferRejected } from "../chains/errors.ts";
import type { ChainRegistry } from "../chains/registry.ts";
import type { SwapProvider } from "../swaps/swap-provider.ts";

/** What moves tokens for one outbound request: a plain transfer of the stablecoin, or a swap into `mint`. */
export interface Sender {
  prepare(cmd: TransferCommand): Promise<PreparedTransfer>;
  broadcast(prepared: PreparedTransfer): Promise<void>;
  status(signature: string): Promise<TransferStatus>;
}

export interface SenderDeps {
  registry: ChainRegistry;
  swaps: SwapProvider | undefined;
  isStablecoin: (chain: Chain, mint: string) => boolean;
}

/** Picks the sender by what is delivered, so the executor and tracker stay one pipeline for both. */
export function createSenders(deps: SenderDeps) {
  return {
    for(chain: Chain, mint: string): Sender {
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
