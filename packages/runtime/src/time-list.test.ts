import { AppError } from "@ramp/contracts";
import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { decodeListCursor, encodeListCursor, listKeyOf, listMarksOf } from "./time-list.ts";

describe("list cursor", () => {
  it("round-trips a position to the millisecond and the id", () => {
    const p = { at: new Date("2026-01-02T03:04:05.678Z"), id: new ObjectId() };
    const back = decodeListCursor(encodeListCursor(p));
    expect(back.at.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(back.id.equals(p.id)).toBe(true);
  });

  it("is opaque: URL-safe, no padding, no visible date", () => {
    const c = encodeListCursor({ at: new Date(0), id: new ObjectId("0123456789abcdef01234567") });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(c).not.toContain("0123456789abcdef01234567");
  });

  it("rejects anything garbled with 400 Invalid cursor", () => {
    const good = encodeListCursor({ at: new Date(), id: new ObjectId() });
    const garbled = [
      "",
      "not a cursor!",
      good.slice(0, -3),
      `${good}x`,
      Buffer.from("123.xyz").toString("base64url"),
      Buffer.from(`99999999999999999.${"a".repeat(24)}`).toString("base64url"),
      Buffer.from(`-1.${"a".repeat(24)}`).toString("base64url"),
    ];
    for (const cursor of garbled) {
      let caught: unknown;
      try {
        decodeListCursor(cursor);
      } catch (err) {
        caught = err;
      }
      expect(caught, cursor).toBeInstanceOf(AppError);
      expect((caught as AppError).status).toBe(400);
      expect((caught as AppError).detail).toBe("Invalid cursor");
    }
  });
});

describe("list marks", () => {
  it("chain a document's minute up to its scope's top, each naming its parent", () => {
    const at = new Date("2026-11-26T23:59:59.999Z");
    const marks = listMarksOf("biz", at);
    expect(marks[0]?._id).toBe(listKeyOf("biz", at));
    for (let i = 1; i < marks.length; i++) expect(marks[i - 1]?.up).toBe(marks[i]?._id);
    expect(marks.at(-1)?.up).toBe("biz:top");
    // The next millisecond is another minute, hour and day, under the same 32-day bucket.
    const next = listMarksOf("biz", new Date(at.getTime() + 1));
    expect(next[0]?._id).not.toBe(marks[0]?._id);
    expect(next[2]?._id).not.toBe(marks[2]?._id);
    expect(listMarksOf("other", at)[0]?._id).not.toBe(marks[0]?._id);
  });
});
