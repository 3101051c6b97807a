import type { NatsConnection } from "@nats-io/transport-node";
import { badRequest, notFound, Rpc } from "@ramp/contracts";
import { type Logger, type Stoppable, serveRpc } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import { type ExceptionsStore, exceptionDto } from "./exceptions-store.ts";
import type { createReconciliation } from "./reconciliation.ts";
import { type Refunds, refundDto } from "./refunds.ts";

/** The console's money operations that orders answers: the exceptions queue and refunds. */
export function serveMoneyOps(deps: {
  nc: NatsConnection;
  exceptions: ExceptionsStore;
  refunds: Refunds;
  reconciliation: ReturnType<typeof createReconciliation>;
  log: Logger;
  queue: string;
}): Stoppable[] {
  const { nc, exceptions, refunds, reconciliation, log, queue } = deps;
  return [
    serveRpc(nc, Rpc.exceptionList, queue, log, async ({ limit, cursor, ...filter }) => {
      if (cursor !== undefined && !/^[0-9a-f]{24}$/.test(cursor)) throw badRequest("cursor is not valid");
      const after = cursor ? new ObjectId(cursor) : null;
      const docs = await exceptions.page(filter, after, limit + 1);
      const data = docs.slice(0, limit);
      const last = data[data.length - 1];
      return {
        data: data.map(exceptionDto),
        nextCursor: docs.length > limit && last ? last._id.toHexString() : "",
      };
    }),
    serveRpc(nc, Rpc.exceptionResolve, queue, log, async ({ id, note, by }, ctx) => {
      const resolved = await exceptions.resolve(id, note, by, ctx.trace);
      if (!resolved) throw notFound("Exception not found");
      if (resolved.changed) ctx.log.info({ exceptionId: id, by }, "exception resolved");
      return { exception: exceptionDto(resolved.doc), changed: resolved.changed };
    }),
    serveRpc(nc, Rpc.reconciliation, queue, log, ({ date }, ctx) => reconciliation.day(date, ctx.trace)),
    serveRpc(nc, Rpc.fundRefund, queue, log, async (req, ctx) => {
      const { refund, created } = await refunds.request(req, ctx.trace);
      return { refund: refundDto(refund), created };
    }),
  ];
}
