import type { Db } from "mongodb";
import type { TransferDoc } from "./transfer-store.ts";

/** What became of outbound transfers, by request id (reconciliation's check of delivered onramps). */
export function transferStatuses(db: Db) {
  const transfers = db.collection<TransferDoc>("transfers");
  return async ({ requestIds }: { requestIds: string[] }) => {
    const docs = await transfers
      .find({ _id: { $in: requestIds } }, { projection: { _id: 1, status: 1, signature: 1 } })
      .toArray();
    return docs.map((d) => ({ requestId: d._id, status: d.status, signature: d.signature ?? null }));
  };
}
