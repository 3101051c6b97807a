import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc, TRANSACTION_LIST_RPC_MAX, type TransactionPage } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { transactionCsvHeader, transactionCsvRow } from "../csv.ts";
import type { Register } from "../register.ts";

/** The order list and its CSV export. */
export function transactionRoutes(register: Register, nc: NatsConnection) {
  register(Routes.transactionList, async (c, { query }) => {
    const { limit, cursor, ...filter } = query;
    const request = { businessId: c.var.caller.businessId, filter, limit, ...(cursor ? { cursor } : {}) };
    return callRpc(nc, Rpc.transactionList, request, c.var.trace);
  });

  /**
   * Streams every matching order as CSV by walking the list page by page (the keyset cursor, large
   * pages): each side holds one page at a time, and the next page is fetched only when the client has
   * taken the previous one, so memory stays bounded however many rows there are. The first page is read
   * before answering, so a failure there is still a JSON error; a failure later aborts the stream,
   * which the client sees as a broken transfer rather than a short but well-formed file.
   */
  register(Routes.transactionExport, async (c, { query: filter }) => {
    const { trace, log } = c.var;
    const pageAfter = (cursor?: string) =>
      callRpc(
        nc,
        Rpc.transactionList,
        {
          businessId: c.var.caller.businessId,
          filter,
          limit: TRANSACTION_LIST_RPC_MAX,
          ...(cursor ? { cursor } : {}),
        },
        trace,
      );
    let ready: TransactionPage | null = await pageAfter();
    let cursor = "";
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(transactionCsvHeader()));
      },
      async pull(controller) {
        try {
          const page = ready ?? (await pageAfter(cursor));
          ready = null;
          controller.enqueue(encoder.encode(page.data.map(transactionCsvRow).join("")));
          cursor = page.nextCursor;
          if (!cursor) controller.close();
        } catch (err) {
          log.error({ err }, "transaction export aborted");
          controller.error(err);
        }
      },
    });
    c.header("content-disposition", 'attachment; filename="transactions.csv"');
    return body;
  });
}
