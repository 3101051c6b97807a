import { setTimeout as delay } from "node:timers/promises";
import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc, type TransactionChunk } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import type { Context } from "hono";
import type { z } from "zod";
import { transactionCsvHeader, transactionCsvRow } from "../csv.ts";
import type { GatewayEnv } from "../env.ts";
import type { Register } from "../register.ts";

/**
 * The query behind an export sorts every matching order before its first row when the database has no
 * index for the sort (FerretDB reads all of them: about 10 s for 100,000 orders on two idle cores, far
 * more on busy ones), so opening one may take much longer than an ordinary request.
 */
const EXPORT_OPEN_TIMEOUT_MS = 300_000;
/**
 * A first chunk ready within this long is awaited before answering, so a failure to open is a JSON
 * error (503). Past it the answer starts (status and header row) so the client and any proxy see a
 * live response, and a failure to open then breaks the transfer.
 */
const EXPORT_ANSWER_AFTER_MS = 5_000;

/** The order list and its CSV export. */
export function transactionRoutes(register: Register, nc: NatsConnection) {
  register(Routes.transactionList, async (c, { query }) => {
    const { limit, cursor, ...filter } = query;
    const request = { businessId: c.var.caller.businessId, filter, limit, ...(cursor ? { cursor } : {}) };
    return callRpc(nc, Rpc.transactionList, request, c.var.trace);
  });

  register(Routes.transactionExport, (c, { query: filter }) =>
    transactionCsv(c, nc, { businessId: c.var.caller.businessId, filter }),
  );
}

/**
 * Streams every matching order as CSV. Orders reads them through one database cursor and hands them
 * over a chunk at a time, each asked for only when the client has taken the previous one, so both
 * sides hold one chunk however many rows there are. A failure after the answer has started aborts
 * the stream, which the client sees as a broken transfer rather than a short but well-formed file.
 * A client that goes away closes the export's cursor at once.
 */
export async function transactionCsv(
  c: Context<GatewayEnv>,
  nc: NatsConnection,
  request: z.infer<typeof Rpc.transactionExport.request>,
) {
  const { trace, log } = c.var;
  const opening = callRpc(nc, Rpc.transactionExport, request, trace, EXPORT_OPEN_TIMEOUT_MS);
  // Awaited below, or by the first pull; this only keeps an early failure from going unhandled.
  opening.catch(() => undefined);
  const waited = new AbortController();
  const first = await Promise.race([
    opening,
    delay(EXPORT_ANSWER_AFTER_MS, null, { signal: waited.signal }),
  ]).finally(() => waited.abort());
  let ready: Promise<TransactionChunk> | null = opening;
  let next = first?.next ?? "";
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(transactionCsvHeader()));
    },
    async pull(controller) {
      try {
        const chunk = await (ready ?? callRpc(nc, Rpc.transactionExportNext, {}, trace, undefined, next));
        ready = null;
        next = chunk.next;
        controller.enqueue(encoder.encode(chunk.data.map(transactionCsvRow).join("")));
        if (!next) controller.close();
      } catch (err) {
        next = "";
        log.error({ err }, "transaction export aborted");
        controller.error(err);
      }
    },
    cancel() {
      // Still opening: close it once it has.
      const open = ready ? ready.then((chunk) => chunk.next) : Promise.resolve(next);
      ready = null;
      next = "";
      open
        .then((subject) =>
          subject ? callRpc(nc, Rpc.transactionExportNext, { stop: true }, trace, undefined, subject) : null,
        )
        .catch((err: unknown) =>
          log.warn({ err }, "export not closed on cancel; its idle timeout will close it"),
        );
    },
  });
  c.header("content-disposition", 'attachment; filename="transactions.csv"');
  return body;
}
