import {
  type AddressPurpose,
  AppError,
  badRequest,
  type Chain,
  chainFamily,
  isChainMint,
  normalizeAddress,
} from "@ramp/contracts";
import type { Logger } from "@ramp/runtime";
import type { ChainRegistry } from "../chains/registry.ts";
import { type AllocationDoc, type AllocationStore, allocationId } from "./allocation-store.ts";

const MAX_INDEX_ATTEMPTS = 20;

export interface AllocateRequest {
  chain: Chain;
  purpose: AddressPurpose;
  ref: string;
  mints: string[];
}

/**
 * Hands out deposit addresses. Idempotent per {purpose, ref}: the same ref always gets the same
 * address (new mints are added to what it watches). The allocation is stored before the address is
 * returned, and HD indexes come from a per-family counter (in blocks, see `HD_INDEX_BLOCK`), so no
 * index is ever issued twice.
 *
 * A ref is nearly always new (an order, payment or bank account asks once; again only on a retry), so
 * its allocation is inserted without looking first: the unique `_id` and {purpose, ref} index turn a
 * repeat into a duplicate-key error, and then the stored allocation is the answer. A repeat costs one
 * burnt index; a first allocation saves a read.
 */
export function createAllocator(store: AllocationStore, registry: ChainRegistry, log: Logger) {
  async function existing(doc: AllocationDoc, req: AllocateRequest, mints: string[]): Promise<string> {
    if (doc.chain !== req.chain) {
      throw new AppError("CONFLICT", `ref ${req.ref} already has an address on ${doc.chain}`);
    }
    const added = mints.filter((m) => !doc.mints.includes(m));
    if (added.length > 0) await store.addMints(doc._id, added);
    await store.watch({ ...doc, mints: [...doc.mints, ...added] }, normalizeAddress(doc.chain, doc.address));
    return doc.address;
  }

  return async function allocate(req: AllocateRequest): Promise<string> {
    const invalid = req.mints.filter((m) => !isChainMint(req.chain, m));
    if (invalid.length > 0) badRequestFor(req.chain, invalid);
    const mints = [...new Set(req.mints.map((m) => normalizeAddress(req.chain, m)))];
    const family = chainFamily(req.chain);
    // Fails with 503 before an index is reserved when the chain cannot derive addresses here.
    registry.adapter(req.chain);
    for (let attempt = 1; ; attempt++) {
      const index = await store.reserveIndex(family);
      const address = await registry.derive(req.chain, index);
      const doc: AllocationDoc = {
        _id: allocationId(req.purpose, req.ref),
        family,
        index,
        chain: req.chain,
        purpose: req.purpose,
        ref: req.ref,
        mints,
        address,
        createdAt: new Date(),
      };
      if (!(await store.insert(doc))) {
        // The ref has its allocation (a repeat, or a concurrent call that won): its address is the
        // answer, and our index stays burnt.
        const winner = await store.findWinner(req.purpose, req.ref);
        if (winner) return existing(winner, req, mints);
        // The index itself was taken: the unique {family, index} is the real guard, because not every
        // MongoDB-wire database applies concurrent $inc atomically, and then two processes may hold the
        // same block. Take an index from a fresh block.
        if (attempt >= MAX_INDEX_ATTEMPTS)
          throw new Error(`${family} address index still taken after ${attempt} fresh blocks`);
        store.dropReserved(family);
        continue;
      }
      await store.watchNew(doc, normalizeAddress(req.chain, address));
      log.info({ chain: req.chain, purpose: req.purpose, ref: req.ref, index, address }, "address allocated");
      return address;
    }
  };
}

function badRequestFor(chain: Chain, invalid: string[]): never {
  throw badRequest(invalid.map((m) => `mint ${m} is not a token address on ${chain}`));
}
