import { AppError } from "@ramp/contracts";
import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./list-cursor.ts";

describe("transaction list cursor", () => {
  it("round-trips a position to the millisecond and the id", () => {
    const p = { at: new Date("2026-01-02T03:04:05.678Z"), id: new ObjectId() };
    const back = decodeCursor(encodeCursor(p));
    expect(back.at.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(back.id.equals(p.id)).toBe(true);
  });

  it("is opaque: URL-safe, no padding, no visible date", () => {
    const c = encodeCursor({ at: new Date(0), id: new ObjectId("0123456789abcdef01234567") });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(c).not.toContain("0123456789abcdef01234567");
  });

  it("rejects anything garbled with 400 Invalid cursor", () => {
    const good = encodeCursor({ at: new Date(), id: new ObjectId() });
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
        decodeCursor(cursor);
      } catch (err) {
        caught = err;
      }
      expect(caught, cursor).toBeInstanceOf(AppError);
      expect((caught as AppError).status).toBe(400);
      expect((caught as AppError).detail).toBe("Invalid cursor");
    }
  });
});
