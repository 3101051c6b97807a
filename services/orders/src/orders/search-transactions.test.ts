import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import type { OrderDoc } from "./order-doc.ts";
import { mergePages, searchMatches } from "./search-transactions.ts";

const doc = (id: string, at: number) => ({ _id: new ObjectId(id), createdAt: new Date(at) }) as OrderDoc;

describe("a console search", () => {
  it("tries an order id only where the term is one, and every searched field always", () => {
    const fields = (q: string) => searchMatches(q).map((m) => m.field);
    expect(fields("cust-42")).toEqual([
      "address",
      "recipient",
      "accountNumber",
      "signature",
      "userExternalId",
    ]);
    expect(fields("65a1b2c3d4e5f60718293a4b")[0]).toBe("_id");
  });

  it("merges the fields' pages newest first, each order once, cut to the page, with where to go on", () => {
    const a = doc("65a1b2c3d4e5f60718293a4a", 3000);
    const b = doc("65a1b2c3d4e5f60718293a4b", 2000);
    const c = doc("65a1b2c3d4e5f60718293a4c", 2000);
    const page = (docs: OrderDoc[]) => ({ docs, next: null });
    const merged = mergePages([page([a, b]), page([c]), page([a])], 2);
    expect(merged.docs.map((d) => d._id.toHexString())).toEqual([a._id.toHexString(), c._id.toHexString()]);
    expect(merged.next).toEqual({ at: c.createdAt, id: c._id });
    expect(mergePages([page([a]), page([a])], 2).next).toBeNull();
    // One field still had more: the page is full-length but not the last.
    const more = mergePages([{ docs: [a], next: { at: a.createdAt, id: a._id } }, page([])], 1);
    expect(more.next).toEqual({ at: a.createdAt, id: a._id });
  });
});
