import type { JetStreamClient } from "@nats-io/jetstream";
import { Events, type OrderStatus, type TransactionFilter } from "@ramp/contracts";
import {
  type Claims,
  createStateStore,
  type ListBudget,
  type ListPage,
  type ListPosition,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  type Stoppable,
  type TraceContext,
} from "@ramp/runtime";
import { type Collection, type Db, type Filter, ObjectId } from "mongodb";
import { ensureKeyIndex, findByKey, insertOnce } from "../idempotency/once-per-key.ts";
import { type OrderDoc, toDto } from "./order-doc.ts";
import { ALL_BUSINESSES, orderLists } from "./order-list-keys.ts";

export interface OrderMove {
  id: ObjectId;
  from: OrderStatus;
  to: OrderStatus;
  /** What moves it; only one cause ever leaves a state (see StateStore). */
  cause: string;
  set?: Partial<OrderDoc>;
  trace: TraceContext;
  /** Messages besides the status event, saved with the change (a payout or transfer command). */
  extra?: (order: OrderDoc) => OutboxEntry[];
  /** The order as the caller just read it: the change is tried on it before reading it again. */
  seen?: OrderDoc | null;
}

/**
 * Orders persistence. Every status change bumps `sequence` and queues the status-changed event in the
 * same update, so a change and its announcement cannot drift apart.
 */
export interface OrdersStore {
  init(): Promise<void>;
  insert(doc: OrderDoc): Promise<boolean>;
  /** The order a request with this scoped Idempotency-Key created, if any. */
  findByKey(key: string | undefined): Promise<OrderDoc | null>;
  /** Inserts, or returns the order a concurrent retry with the same key stored first. */
  insertOnce(doc: OrderDoc): Promise<OrderDoc>;
  get(id: string | ObjectId): Promise<OrderDoc | null>;
  /** The order when it is the business's (any business's for null). */
  getForBusiness(id: string, businessId: string | null): Promise<OrderDoc | null>;
  /**
   * Up to `limit` of the business's orders matching `filter`, newest first (`createdAt`, then `_id`,
   * descending), strictly after `after`, and where the next page starts. The list pages through this.
   * Its reads follow the page, not the history (see `createTimeList`): a page that had to pass over
   * many orders the filter leaves out stops early, with fewer orders and a `next` to go on from.
   */
  page(
    scope: ListScope,
    filter: TransactionFilter,
    after: ListPosition | null,
    limit: number,
  ): Promise<ListPage<OrderDoc>>;
  /** Orders created on this UTC day (YYYY-MM-DD), with the fields the overview counts. */
  createdOn(scope: ListScope, day: string): Promise<OverviewFields[]>;
  /** The order after this cause moved it, or null when it is elsewhere or another cause owns the exit. */
  transition(move: OrderMove): Promise<OrderDoc | null>;
  claimExit(id: ObjectId, from: OrderStatus, to: OrderStatus | "DELETED", cause: string): Promise<boolean>;
  /** Unpaid onramp orders past their TTL, oldest first. */
  dueForExpiry(now: Date, limit: number): Promise<ObjectId[]>;
  /** Deletes an order still in INIT (its exit claimed for deletion first). */
  deleteUnpaid(id: ObjectId): Promise<boolean>;
  startSweeper(): Stoppable;
}

/** Fields a search matches exactly, each with an index of its own (see `init`). */
export const SEARCH_FIELDS = [
  "address",
  "recipient",
  "accountNumber",
  "signature",
  "userExternalId",
] as const;
export type SearchMatch =
  | { field: "_id"; value: ObjectId }
  | { field: (typeof SEARCH_FIELDS)[number]; value: string };

/** Whose orders a list reads (null: every business's) and, for a search, the one field it matches. */
export interface ListScope {
  businessId: string | null;
  match?: SearchMatch;
}

export type OverviewFields = Pick<OrderDoc, "status" | "currency" | "chain" | "fiatAmount" | "usdcAmount">;

/** The UTC day an order was created on, kept on it so the overview reads a day by equality. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

function scoped(scope: ListScope): Filter<OrderDoc> {
  const query: Filter<OrderDoc> = scope.businessId === null ? {} : { businessId: scope.businessId };
  if (scope.match?.field === "_id") query._id = scope.match.value;
  else if (scope.match) query[scope.match.field] = scope.match.value;
  return query;
}

/** The filter's equalities; its time range is the list's own (`createTimeList`). */
function listMatch(scope: ListScope, filter: TransactionFilter): Filter<OrderDoc> {
  return { ...scoped(scope), ...filterMatch(filter) };
}

/**
 * The filter's equalities alone: what a time list's leaf read adds to its key, which names the scope
 * already. Repeating the business there could let PostgreSQL (which estimates every containment
 * alike) read it through the business's index, every order the business ever had, not the leaf's.
 */
function filterMatch(filter: TransactionFilter): Filter<OrderDoc> {
  const query: Filter<OrderDoc> = {};
  if (filter.type) query.transactionType = filter.type;
  if (filter.status) query.status = filter.status;
  if (filter.chain) query.chain = filter.chain;
  if (filter.currency) query.currency = filter.currency;
  return query;
}

const listRange = (filter: TransactionFilter) => ({
  from: filter.from ? new Date(filter.from) : undefined,
  to: filter.to ? new Date(filter.to) : undefined,
});

/**
 * The list as one sorted query: until every stored order has its list keys (the lists' backfill), and
 * for a search's field, one indexed equality that names a handful of orders.
 */
async function unkeyedPage(
  col: Collection<OrderDoc>,
  ...[scope, filter, after, limit]: Parameters<OrdersStore["page"]>
): Promise<ListPage<OrderDoc>> {
  const { from, to } = listRange(filter);
  const query: Filter<OrderDoc> = listMatch(scope, filter);
  if (from || to) query.createdAt = { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) };
  if (after) query.$or = [{ createdAt: { $lt: after.at } }, { createdAt: after.at, _id: { $lt: after.id } }];
  const docs = await col
    .find(query)
    .sort({ createdAt: -1, _id: -1 })
    .limit(limit + 1)
    .toArray();
  const shown = docs.slice(0, limit);
  const last = shown.at(-1);
  return { docs: shown, next: docs.length > limit && last ? { at: last.createdAt, id: last._id } : null };
}

export function createOrdersStore(deps: {
  db: Db;
  js: JetStreamClient;
  claims: Claims;
  log: Logger;
  /** How much a list page reads at most before answering with a cursor (tests make it small). */
  listBudget?: ListBudget;
}): OrdersStore {
  const col = deps.db.collection<OrderDoc>("orders");
  const states = createStateStore<OrderDoc, OrderStatus>({
    collection: col,
    stateField: "status",
    // A change reads the times and the sequence of the order before it, and its event the whole order,
    // whose other fields only a change of status changes, and every change of status bumps `sequence`.
    decidedBy: ["sequence"],
    ...deps,
  });
  const lists = orderLists(deps.db, deps.listBudget);
  const page: OrdersStore["page"] = (scope, filter, after, limit) => {
    // A business's list, or every business's (the console's operators), each a time list of its own.
    const list = scope.businessId === null ? lists.all : lists.business;
    if (scope.match || !list.ready()) return unkeyedPage(col, scope, filter, after, limit);
    const key = scope.businessId ?? ALL_BUSINESSES;
    return list.page(key, filterMatch(filter), listRange(filter), after, limit);
  };
  // Every order is listed under its business and among every business's; the marks go in first.
  const keyed = async (doc: OrderDoc) =>
    (await lists.keyed([{ ...doc, day: dayOf(doc.createdAt) }]))[0] as OrderDoc;
  const insert = async (doc: OrderDoc) => states.insert(await keyed(doc));

  const get = async (id: string | ObjectId) => {
    if (typeof id === "string" && !ObjectId.isValid(id)) return null;
    return col.findOne({ _id: new ObjectId(id) });
  };

  return {
    async init() {
      // The list as one sorted query (`unkeyedPage`, until every order has its list keys), whatever
      // filters it gets, on MongoDB. Its prefix (business, then the
      // keyset createdAt/_id descending) serves the sort and the from/to range, so a page is a bounded
      // index walk starting at its cursor with no in-memory sort. The optional equality filters follow
      // the keyset rather than lead it: leading with them would need an index per combination (16),
      // while trailing they are checked on the index keys before any document is fetched.
      await col.createIndex(
        { businessId: 1, createdAt: -1, _id: -1, transactionType: 1, status: 1, chain: 1, currency: 1 },
        { name: "business_list" },
      );
      // Every business's list read the old way (until every order is keyed), and one per searched field.
      await col.createIndex({ createdAt: -1, _id: -1 }, { name: "all_list" });
      for (const field of SEARCH_FIELDS) await col.createIndex({ [field]: 1 }, { name: `search_${field}` });
      await col.createIndex({ day: 1, businessId: 1 }, { name: "overview_day" });
      await col.createIndex({ status: 1, expiresAt: 1 });
      await ensureKeyIndex(col);
      await lists.business.init();
      await lists.all.init();
    },
    insert,
    findByKey: (key) => findByKey(col, key),
    insertOnce: async (doc) => insertOnce(col, await keyed(doc), states.insert),
    get,
    async getForBusiness(id, businessId) {
      const doc = await get(id);
      return doc && (businessId === null || doc.businessId === businessId) ? doc : null;
    },
    async transition({ id, from, to, cause, set = {}, trace, extra = () => [], seen }) {
      const moved = await states.transition({
        id,
        from,
        to,
        cause,
        seen,
        // Read under the order's hold, so the history of times cannot lose a concurrent entry.
        set: (current) => ({
          ...set,
          sequence: current.sequence + 1,
          statusTimes: { ...current.statusTimes, [to]: new Date() },
        }),
        events: (next) => [
          outboxEntry(
            Events.orderStatusChanged,
            {
              businessId: next.businessId,
              apiKeyId: next.apiKeyId,
              webhookURL: next.webhookURL,
              sequence: next.sequence,
              order: toDto(next),
            },
            `${id.toHexString()}:${to}`,
            trace,
          ),
          ...extra(next),
        ],
      });
      if (moved)
        deps.log.info(
          { orderId: id.toHexString(), from, to, requestId: trace.requestId },
          "order status changed",
        );
      return moved;
    },
    page,
    createdOn: (scope, day) =>
      col
        .find(
          { ...scoped(scope), day },
          { projection: { _id: 0, status: 1, currency: 1, chain: 1, fiatAmount: 1, usdcAmount: 1 } },
        )
        .toArray(),
    claimExit: (id, from, to, cause) => states.claimExit(id, from, to, cause),
    async dueForExpiry(now, limit) {
      const due = await col
        .find(
          { transactionType: "ON_RAMP", status: "INIT", expiresAt: { $lte: now } },
          { projection: { _id: 1 } },
        )
        .sort({ expiresAt: 1 })
        .limit(limit)
        .toArray();
      return due.map((d) => d._id);
    },
    deleteUnpaid: (id) => states.remove(id, "INIT"),
    startSweeper() {
      const sweeper = states.startSweeper();
      let stopping = false;
      // Orders stored before lists were keyed, through the store's guarded write (an older process
      // may be moving the same order), following the order if it moves meanwhile.
      const setKey = (field: "listKey" | "allKey") => async (o: OrderDoc, key: string) => {
        for (let status = o.status; ; ) {
          if (await states.update(o._id, status, {}, { [field]: key })) return;
          const now = await col.findOne({ _id: o._id });
          if (!now || now[field]) return;
          status = now.status;
        }
      };
      const backfill = (async () => {
        const common = { log: deps.log, stopping: () => stopping };
        await lists.business.backfill({ ...common, setKey: setKey("listKey") });
        await lists.all.backfill({ ...common, setKey: setKey("allKey") });
      })().catch((err: unknown) => deps.log.error({ err }, "keying orders for the transaction lists failed"));
      return {
        async stop() {
          stopping = true;
          await Promise.all([sweeper.stop(), backfill]);
        },
      };
    },
  };
}
