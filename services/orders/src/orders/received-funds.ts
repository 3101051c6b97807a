import { isDuplicateKey } from "@ramp/runtime";
import type { Db } from "mongodb";

export type FundsOutcome = "applied" | "unmatched" | "other-token" | "ignored";

interface ReceivedFundsDoc {
  /** `fiat:<rail reference>` or `chain:<chain>:<txId>:<index>`: each inbound fund once. */
  _id: string;
  ref: string;
  orderId: string | null;
  /** What it did: moved an order or payment, or was kept for operators (late, other token, unknown). */
  outcome: FundsOutcome;
  detail: unknown;
  receivedAt: Date;
}

/** Every fiat or token arrival orders hears of is written down once, whatever it ends up doing. */
export function createReceivedFunds(db: Db) {
  const col = db.collection<ReceivedFundsDoc>("received_funds");
  return {
    async record(id: string, ref: string, orderId: string | null, outcome: FundsOutcome, detail: unknown) {
      try {
        await col.insertOne({ _id: id, ref, orderId, outcome, detail, receivedAt: new Date() });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },
  };
}
export type ReceivedFunds = ReturnType<typeof createReceivedFunds>;
