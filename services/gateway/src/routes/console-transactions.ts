import type { NatsConnection } from "@nats-io/transport-node";
import {
  badRequest,
  type DeliveryAttemptDto,
  OVERVIEW_MAX_DAYS,
  Routes,
  Rpc,
  sortTimeline,
  type TimelineEntryDto,
} from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import type { PersonDoc } from "../people/people-store.ts";
import type { Register } from "../register.ts";
import { businessScope } from "./console-keys.ts";
import { transactionCsv } from "./transactions.ts";

const DAY_MS = 86_400_000;
const OVERVIEW_DEFAULT_DAYS = 30;
/** Attempts one timeline shows; an order's webhooks are a few per status change. */
const TIMELINE_ATTEMPTS = 100;

const webhookEntry = (a: DeliveryAttemptDto): TimelineEntryDto => ({
  at: a.createdAt,
  kind: "webhook",
  detail: {
    deliveryId: a.deliveryId,
    attempt: a.attempt,
    url: a.url,
    delivered: a.delivered,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    error: a.error,
  },
});

/** The UTC day `days` before `day` (YYYY-MM-DD). */
const daysBefore = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

/**
 * The console's transactions: a member's business's, an operator's across every business (or the one
 * named). Orders answers the lists, the export and each order's own history; webhook-dispatcher adds
 * the attempts to the timeline.
 */
export function consoleTransactionRoutes(register: Register, nc: NatsConnection, now: () => number) {
  // null: every business's, which only operators get (a member's own is always set).
  const scopeOf = (person: PersonDoc, named: string | undefined) => businessScope(person, named) ?? null;

  register(Routes.consoleTransactionList, async (c, { query }) => {
    const { limit, cursor, businessId, q, ...filter } = query;
    const request = {
      businessId: scopeOf(c.var.person, businessId),
      filter,
      limit,
      ...(q ? { q } : {}),
      ...(cursor ? { cursor } : {}),
    };
    return callRpc(nc, Rpc.transactionList, request, c.var.trace);
  });

  register(Routes.consoleTransactionExport, (c, { query: { businessId, q, ...filter } }) =>
    transactionCsv(c, nc, { businessId: scopeOf(c.var.person, businessId), filter, ...(q ? { q } : {}) }),
  );

  register(Routes.consoleTransactionGet, async (c, { params: { id } }) => {
    const { trace } = c.var;
    const businessId = scopeOf(c.var.person, undefined);
    // Both at once; the attempts are dropped with the order when it is not this person's (404).
    const [order, attempts] = await Promise.all([
      callRpc(nc, Rpc.transactionTimeline, { businessId, id }, trace),
      callRpc(nc, Rpc.webhookDeliveryPage, { subjectId: id, limit: TIMELINE_ATTEMPTS }, trace),
    ]);
    return { ...order, timeline: sortTimeline([...order.timeline, ...attempts.data.map(webhookEntry)]) };
  });

  register(Routes.consoleOverview, async (c, { query }) => {
    const to = query.to ?? new Date(now()).toISOString().slice(0, 10);
    const from = query.from ?? daysBefore(to, OVERVIEW_DEFAULT_DAYS - 1);
    if (Date.parse(to) - Date.parse(from) >= OVERVIEW_MAX_DAYS * DAY_MS)
      throw badRequest([`from and to span at most ${OVERVIEW_MAX_DAYS} days`]);
    const request = { businessId: scopeOf(c.var.person, query.businessId), from, to };
    return callRpc(nc, Rpc.transactionOverview, request, c.var.trace);
  });
}
