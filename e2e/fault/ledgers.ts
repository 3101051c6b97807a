import { ORDER_STATUSES, SUPERSEDED_DELIVERY } from "@ramp/contracts";
import { ObjectId } from "mongodb";
import { type ProcessStack, SERVICE_NAMES } from "../support/process-stack.ts";
import type { PlannedOrder } from "./order-mix.ts";

/**
 * Reads behind the API, each from the database of the service that owns the fact: where a deposit
 * entered (banking's rail inbound or chain-watcher's observation), what orders recorded, what was
 * paid out and sent.
 */

const viaBank = (p: PlannedOrder) => p.kind === "onramp" || p.kind === "payment-fiat";

/** The deposits that entered the system for an order, named as orders names them in `received_funds`. */
export async function sourceDeposits(stack: ProcessStack, plan: PlannedOrder, id: string): Promise<string[]> {
  if (viaBank(plan)) {
    const docs = await (await stack.db("banking"))
      .collection<{ _id: string }>("fiat_deposits")
      .find({ ref: id, status: "matched" }, { projection: { _id: 1 } })
      .toArray();
    return docs.map((d) => `fiat:${d._id}`);
  }
  const docs = await (await stack.db("chain-watcher"))
    .collection<{ _id: string }>("deposits")
    .find({ ref: id }, { projection: { _id: 1 } })
    .toArray();
  return docs.map((d) => `chain:${d._id}`);
}

export interface FundsRecord {
  _id: string;
  outcome: string;
}

export async function fundsRecords(stack: ProcessStack, id: string): Promise<FundsRecord[]> {
  return (await stack.db("orders"))
    .collection<FundsRecord>("received_funds")
    .find({ ref: id }, { projection: { _id: 1, outcome: 1 } })
    .toArray();
}

/**
 * Statuses the order passed through after INIT, from the one-way-out record orders keeps per state. Each
 * way out of a state is owned by `<to>|<cause>` and recorded where runtime's state store puts it: on
 * MongoDB a claim `orders:<id>:<from>` beside the document; on FerretDB, where one process writes a
 * document at a time, the document's own `exits.<from>` (a claim beside it only for an exit taken after
 * the order had already left that state). Both are read, so the path is whole on either database.
 */
export async function statusPath(stack: ProcessStack, id: string): Promise<string[]> {
  const db = await stack.db("orders");
  const prefix = `orders:${id}:`;
  const claims = await db
    .collection<{ _id: string; owner: string }>("claims")
    .find({ _id: { $in: ORDER_STATUSES.map((s) => `${prefix}${s}`) } })
    .toArray();
  const doc = ObjectId.isValid(id)
    ? await db
        .collection<{ exits?: Record<string, string> }>("orders")
        .findOne({ _id: new ObjectId(id) }, { projection: { exits: 1 } })
    : null;
  return pathOf([
    ...claims.map((c) => [c._id.slice(prefix.length), c.owner] as const),
    ...Object.entries(doc?.exits ?? {}),
  ]);
}

/** The states reached from INIT, following each state's exit (`[from, "<to>|<cause>"]`). */
export function pathOf(exits: ReadonlyArray<readonly [string, string]>): string[] {
  const next = new Map(exits.map(([from, owner]) => [from, owner.split("|")[0]]));
  const path: string[] = [];
  for (let s = next.get("INIT"); s && path.length < 8; s = next.get(s)) path.push(s);
  return path;
}

export async function payoutsOf(stack: ProcessStack, id: string) {
  return (await stack.db("banking"))
    .collection<{ _id: string; status: string }>("payouts")
    .find({ _id: id }, { projection: { status: 1 } })
    .toArray();
}

export async function transfersOf(stack: ProcessStack, id: string) {
  return (await stack.db("chain-watcher"))
    .collection<{ _id: string; status: string; reason: string | null }>("transfers")
    .find({ _id: id }, { projection: { status: 1, reason: 1 } })
    .toArray();
}

/** Statuses the dispatcher chose not to send because a newer one already reached the URL. */
export async function supersededHooks(stack: ProcessStack, id: string): Promise<string[]> {
  const docs = await (await stack.db("webhook-dispatcher"))
    .collection<{ body: string }>("attempts")
    .find({ subjectId: id, error: SUPERSEDED_DELIVERY }, { projection: { body: 1 } })
    .toArray();
  return docs.map((d) => String((JSON.parse(d.body) as { status?: unknown }).status));
}

export interface OutboxLeftover {
  /** `<service>.<collection>:<_id>` */
  doc: string;
  msgIds: string[];
}

/** Every document, in every collection of every service's database, whose outbox is not empty. */
export async function outboxLeftovers(stack: ProcessStack): Promise<OutboxLeftover[]> {
  const left: OutboxLeftover[] = [];
  for (const name of SERVICE_NAMES) {
    const db = await stack.db(name);
    for (const c of await db.listCollections({}, { nameOnly: true }).toArray()) {
      const docs = await db
        .collection<{ outbox: Array<{ msgId?: unknown }> }>(c.name)
        .find({ "outbox.0": { $exists: true } }, { projection: { outbox: 1 } })
        .toArray();
      for (const d of docs)
        left.push({
          doc: `${name}.${c.name}:${String(d._id)}`,
          msgIds: d.outbox.map((e) => String(e.msgId)),
        });
    }
  }
  return left;
}

/** Orders and payments of the business the driver never heard of: creates whose answer was lost. */
export async function unknownOrders(stack: ProcessStack, businessId: string, known: Set<string>) {
  const db = await stack.db("orders");
  const found: string[] = [];
  for (const name of ["orders", "payments"]) {
    const docs = await db
      .collection<{ status: string }>(name)
      .find({ businessId }, { projection: { status: 1 } })
      .toArray();
    for (const d of docs) if (!known.has(String(d._id))) found.push(`${name.slice(0, -1)} ${d.status}`);
  }
  return found;
}
