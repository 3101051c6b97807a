import type { Chain } from "@ramp/contracts";
import { insertGrouped } from "@ramp/runtime";
import type { Db } from "mongodb";

/**
 * What one inbound fund did, decided by that fund's own claim on the state change, never by an
 * earlier read: `applied` moved an order or payment; `surplus` arrived after another fund had already
 * moved it; `wrong-token` is another asset than the order's; `underfunded` did not cover a payment
 * (left awaiting) or was worth less than an order's fee (order ERROR); `late` found it expired;
 * `unmatched` names nothing orders knows. Everything but `applied` is money an operator may refund;
 * once sent back it is `refunded` (never a first outcome: only a refund's result sets it).
 */
export type FundsOutcome =
  | "applied"
  | "surplus"
  | "wrong-token"
  | "underfunded"
  | "late"
  | "unmatched"
  | "refunded";

export interface ReceivedFundsDoc {
  /** `fiat:<rail reference>` or `chain:<chain>:<txId>:<index>`: each inbound fund once. */
  _id: string;
  ref: string;
  /** The order or payment it was for, when orders knows it. */
  orderId: string | null;
  outcome: FundsOutcome;
  detail: unknown;
  receivedAt: Date;
  /** Where a refund sent it and when, once sent. */
  refund?: { txHash: string | null; railReference: string | null; destination: string; at: Date };
}

/** Every fiat or token arrival orders hears of is written down once, with what it did. */
export interface ReceivedFunds {
  init(): Promise<void>;
  /** The funds recorded against an order or payment, oldest first. */
  forOrder(orderId: string): Promise<ReceivedFundsDoc[]>;
  /** Records the fund once; a redelivery of the same fund keeps the first record. */
  record(
    id: string,
    ref: string,
    orderId: string | null,
    outcome: FundsOutcome,
    detail: unknown,
  ): Promise<void>;
}

export function createReceivedFunds(db: Db): ReceivedFunds {
  const col = db.collection<ReceivedFundsDoc>("received_funds");
  return {
    init: async () => {
      await col.createIndex({ orderId: 1 }, { name: "by_order" });
    },
    // An order gets a handful of funds at most; sorted here, so the query stays one indexed equality.
    forOrder: async (orderId) =>
      (await col.find({ orderId }).limit(1000).toArray()).sort(
        (a, b) => a.receivedAt.getTime() - b.receivedAt.getTime(),
      ),
    async record(id, ref, orderId, outcome, detail) {
      // With the records of other funds that land at the same moment, in one command.
      await insertGrouped(col, { _id: id, ref, orderId, outcome, detail, receivedAt: new Date() });
    },
  };
}

/** One inbound fund as every applier sees it, whether it came from the bank rail or a chain. */
export interface LandedFunds {
  /** Its received-funds id, also the cause of the state change it may make. */
  id: string;
  /** The order or payment its address or virtual account was opened for. */
  ref: string;
  /** Fiat or token units, as a decimal string. */
  amount: string;
  /** Set for chain deposits only. */
  chain?: { chain: Chain; mint: string; txId: string; sender: string };
  detail: unknown;
}
