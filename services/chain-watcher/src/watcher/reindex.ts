import { badRequest, type ReindexAcceptedDto, type ReindexCommand } from "@ramp/contracts";
import type { Logger } from "@ramp/runtime";
import type { AllocationStore } from "../allocation/allocation-store.ts";
import type { ChainRegistry } from "../chains/registry.ts";
import type { DepositStore } from "../deposits/deposit-store.ts";
import { type OnDeposit, recordTransfers } from "./poll-loop.ts";

/**
 * Reindex: scan a bounded range again for transfers to every watched address, whatever the cursor
 * says. Each transfer takes the poll's own path (store with its event, unique per chain/tx/index), so
 * a transfer seen before changes nothing and a missed one flows on as a normal deposit. The range is
 * checked and answered at once; the scan runs after the answer and reports in the log.
 */
export function createReindex(deps: {
  registry: ChainRegistry;
  allocations: AllocationStore;
  deposits: DepositStore;
  log: Logger;
  onDeposit?: OnDeposit;
}) {
  return async (req: ReindexCommand): Promise<ReindexAcceptedDto> => {
    const { chain } = req;
    const rescanner = deps.registry.adapter(chain).rescanner;
    if (!rescanner) throw badRequest(`${chain} runs on the sandbox adapter: there is no chain to scan`);
    const from = BigInt(req.from);
    const asked = BigInt(req.to);
    if (asked < from) throw badRequest("to must not be before from");
    if (asked - from + 1n > rescanner.maxSpan) {
      throw badRequest(
        `a reindex covers at most ${rescanner.maxSpan} ${rescanner.unit}s on ${chain}; split the range`,
      );
    }
    // Never past what the poll itself would read: an unconfirmed transfer is not a deposit yet.
    const head = await rescanner.head();
    const to = asked < head ? asked : head;
    if (to < from)
      throw badRequest(`${chain} has not reached ${rescanner.unit} ${from} with its confirmations yet`);
    const range = { from, to };
    const started = Date.now();
    void (async () => {
      const watched = await deps.allocations.watchedOn(chain);
      const transfers = await rescanner.rescan(
        range,
        watched.map((w) => ({ address: w.address, mints: w.mints })),
      );
      const created = await recordTransfers(
        chain,
        transfers,
        watched,
        deps.deposits,
        deps.log,
        deps.onDeposit,
      );
      deps.log.info(
        {
          chain,
          from: String(from),
          to: String(to),
          seen: transfers.length,
          created,
          ms: Date.now() - started,
        },
        "reindex finished",
      );
    })().catch((err) => deps.log.error({ err, chain }, "reindex failed; ask again"));
    return { chain, from: String(from), to: String(to), unit: rescanner.unit };
  };
}
