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

  it("merges the fields' pages newest first, each order once, cut to the page", () => {
    const a = doc("65a1b2c3d4e5f60718293a4a", 3000);
    const b = doc("65a1b2c3d4e5f60718293a4b", 2000);
    const c = doc("65a1b2c3d4e5f60718293a4c", 2000);
    const merged = mergePages([[b, a], [c], [a]], 2);
    expect(merged.map((d) => d._id.toHexString())).toEqual([a._id.toHexString(), c._id.toHexString()]);
  });
});
