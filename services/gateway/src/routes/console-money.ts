import type { NatsConnection } from "@nats-io/transport-node";
import { type ReconciliationDto, Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { noteAudit } from "../audit/middleware.ts";
import { csvRow } from "../csv.ts";
import type { Register } from "../register.ts";

/**
 * Money operations for operators. Orders keeps the exceptions queue and the refunds; every write here
 * is one request to it, which answers a repeat the same without doing it again.
 */
const ROW_FIELDS = [
  "currency",
  "chain",
  "ordersCompleted",
  "fiatIn",
  "fiatOut",
  "tokensIn",
  "tokensOut",
  "feesEarned",
  "refunds",
  "fiatRefunded",
  "tokensRefunded",
] as const;

/** One table for a spreadsheet: the day's rows, then its mismatches, told apart by `record`. */
export function reconciliationCsv(day: ReconciliationDto): string {
  const header = csvRow(["record", "date", ...ROW_FIELDS, "mismatch", "ref", "detail"]);
  const rows = day.rows.map((r) =>
    csvRow(["total", day.date, ...ROW_FIELDS.map((f) => r[f] ?? ""), "", "", ""]),
  );
  const mismatches = day.mismatches.map((m) =>
    csvRow(["mismatch", day.date, ...ROW_FIELDS.map(() => ""), m.kind, m.ref, m.detail]),
  );
  return header + rows.join("") + mismatches.join("");
}

export function consoleMoneyRoutes(register: Register, nc: NatsConnection) {
  register(Routes.consoleExceptionList, (c, { query }) => callRpc(nc, Rpc.exceptionList, query, c.var.trace));

  register(Routes.consoleReconciliation, async (c, { query: { date } }) => {
    const day = await callRpc(nc, Rpc.reconciliation, { date }, c.var.trace);
    if (!(c.req.header("accept") ?? "").includes("text/csv")) return day;
    return new Response(reconciliationCsv(day), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="reconciliation-${date}.csv"`,
      },
    });
  });

  register(Routes.consoleExceptionResolve, async (c, { params: { id }, body: { note } }) => {
    const by = c.var.person._id.toHexString();
    const { exception, changed } = await callRpc(nc, Rpc.exceptionResolve, { id, note, by }, c.var.trace);
    noteAudit(c, {
      target: `exception:${id}`,
      before: { status: changed ? "open" : exception.status },
      after: { status: exception.status, note, changed },
      businessId: exception.businessId,
    });
  });

  register(Routes.consoleFundRefund, async (c, { params: { id }, body }) => {
    const by = c.var.person._id.toHexString();
    const request = { fundId: id, destination: body, by };
    const { refund, created } = await callRpc(nc, Rpc.fundRefund, request, c.var.trace);
    noteAudit(c, { target: `fund:${id}`, after: { destination: body, created }, businessId: null });
    return refund;
  });

  register(Routes.consoleTransactionRefund, async (c, { params: { id }, body }) => {
    const by = c.var.person._id.toHexString();
    const request = { orderId: id, destination: body, by };
    const { refund, created } = await callRpc(nc, Rpc.fundRefund, request, c.var.trace);
    noteAudit(c, {
      target: `transaction:${id}`,
      after: { destination: body, fundId: refund.fundId, created },
      businessId: null,
    });
    return refund;
  });
}
