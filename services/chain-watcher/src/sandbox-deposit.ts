import {
  badRequest,
  type Chain,
  chainFamily,
  isChainAddress,
  isChainMint,
  normalizeAddress,
  notFound,
} from "@ramp/contracts";
import { Decimal } from "decimal.js";
import type { AllocationStore } from "./allocation/allocation-store.ts";
import { deterministicTxId, randomTxId, sandboxSender } from "./chains/sandbox/sandbox-ids.ts";
import type { DepositStore } from "./deposits/deposit-store.ts";

export interface SandboxDepositRequest {
  chain: Chain;
  address: string;
  mint: string;
  amount: string;
  /** A retried request names the same transaction, which the deposit store records once. */
  idempotencyKey?: string | undefined;
}

/**
 * Rpc.sandboxChainDeposit: a payer's transfer that never touched a chain, injected into the very
 * storage + outbox path the watcher uses, so orders sees exactly what a real deposit produces.
 */
export function createSandboxDeposit(allocations: AllocationStore, deposits: DepositStore) {
  return async function sandboxDeposit(req: SandboxDepositRequest): Promise<{ reference: string }> {
    if (!isChainAddress(req.chain, req.address))
      throw badRequest(`address must be an address on ${req.chain}`);
    if (!isChainMint(req.chain, req.mint)) throw badRequest(`mint must be a token address on ${req.chain}`);
    if (!new Decimal(req.amount).greaterThan(0)) throw badRequest("amount must be positive");
    const watch = await allocations.findWatch(req.chain, normalizeAddress(req.chain, req.address));
    if (!watch) throw notFound(`Address ${req.address} is not allocated on ${req.chain}`);
    const family = chainFamily(req.chain);
    const txId = req.idempotencyKey
      ? deterministicTxId(family, `deposit:${req.idempotencyKey}`)
      : randomTxId(family);
    await deposits.record({
      chain: req.chain,
      txId,
      index: 0,
      address: watch.address,
      mint: normalizeAddress(req.chain, req.mint),
      amount: new Decimal(req.amount).toFixed(),
      sender: sandboxSender(family),
      purpose: watch.purpose,
      ref: watch.ref,
    });
    return { reference: txId };
  };
}
