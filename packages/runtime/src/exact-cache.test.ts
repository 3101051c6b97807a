import { describe, expect, it } from "vitest";
import { createExactCache } from "./exact-cache.ts";

/** A loader over a mutable "database", counting its reads; `gate` holds a read until released. */
function fakeDb(initial: Record<string, string | null>) {
  const rows = { ...initial };
  let reads = 0;
  let gate: Promise<void> | undefined;
  return {
    rows,
    reads: () => reads,
    hold() {
      let resolve: (() => void) | undefined;
      gate = new Promise<void>((r) => {
        resolve = r;
      });
      return () => {
        gate = undefined;
        resolve?.();
      };
    },
    async load(id: string): Promise<string | null> {
      reads++;
      const value = rows[id] ?? null;
      await gate;
      return value;
    },
  };
}

describe("createExactCache", () => {
  it("answers from memory until the record is dropped, misses included", async () => {
    const db = fakeDb({ a: "1" });
    const cache = createExactCache((id: string) => db.load(id));
    expect(await cache.get("a")).toBe("1");
    expect(await cache.get("zz")).toBeNull();
    db.rows.a = "2";
    expect(await cache.get("a")).toBe("1");
    expect(await cache.get("zz")).toBeNull();
    expect(db.reads()).toBe(2);
    cache.drop("a");
    expect(await cache.get("a")).toBe("2");
  });

  it("does not keep a value read while a change arrived: it may be the older one", async () => {
    const db = fakeDb({ a: "old" });
    const cache = createExactCache((id: string) => db.load(id));
    const release = db.hold();
    const inFlight = cache.get("a");
    db.rows.a = "new";
    cache.drop("a");
    release();
    expect(await inFlight).toBe("old");
    expect(await cache.get("a")).toBe("new");
  });

  it("shares one read between concurrent misses", async () => {
    const db = fakeDb({ a: "1" });
    const cache = createExactCache((id: string) => db.load(id));
    const release = db.hold();
    const both = Promise.all([cache.get("a"), cache.get("a")]);
    release();
    expect(await both).toEqual(["1", "1"]);
    expect(db.reads()).toBe(1);
  });

  it("reads the database every time while not live, and starts empty when live again", async () => {
    const db = fakeDb({ a: "1" });
    const cache = createExactCache((id: string) => db.load(id));
    await cache.get("a");
    cache.setLive(false);
    db.rows.a = "2";
    expect(await cache.get("a")).toBe("2");
    expect(await cache.get("a")).toBe("2");
    expect(db.reads()).toBe(3);
    cache.setLive(true);
    db.rows.a = "3";
    expect(await cache.get("a")).toBe("3");
  });

  it("holds at most maxEntries, forgetting the oldest", async () => {
    const db = fakeDb({ a: "1", b: "2", c: "3" });
    const cache = createExactCache((id: string) => db.load(id), 2);
    await cache.get("a");
    await cache.get("b");
    await cache.get("c");
    expect(db.reads()).toBe(3);
    await cache.get("c");
    await cache.get("b");
    expect(db.reads()).toBe(3);
    await cache.get("a");
    expect(db.reads()).toBe(4);
  });

  it("drops every record a change is about, and keeps the others", async () => {
    const db = fakeDb({ "b1:NGN": "1", "b2:NGN": "2", "b1:KES": "3" });
    const cache = createExactCache((id: string) => db.load(id));
    for (const id of ["b1:NGN", "b2:NGN", "b1:KES"]) await cache.get(id);
    db.rows["b1:NGN"] = "1'";
    db.rows["b2:NGN"] = "2'";
    db.rows["b1:KES"] = "3'";
    cache.dropWhere((id) => id.endsWith(":NGN"));
    expect(await cache.get("b1:NGN")).toBe("1'");
    expect(await cache.get("b2:NGN")).toBe("2'");
    expect(await cache.get("b1:KES")).toBe("3");
  });

  it("neither keeps nor shares a read that was in flight when a change it is about arrived", async () => {
    const db = fakeDb({ "b1:NGN": "old" });
    const cache = createExactCache((id: string) => db.load(id));
    const release = db.hold();
    const inFlight = cache.get("b1:NGN");
    db.rows["b1:NGN"] = "new";
    cache.dropWhere((id) => id.startsWith("b1:"));
    // A read after the change does not join the older one.
    const after = cache.get("b1:NGN");
    release();
    expect(await inFlight).toBe("old");
    expect(await after).toBe("new");
    expect(await cache.get("b1:NGN")).toBe("new");
    expect(db.reads()).toBe(2);
  });
});
