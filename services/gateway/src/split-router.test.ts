import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { isConsolePath } from "./console-path.ts";
import { SplitRouter } from "./split-router.ts";

/** An app with the console's overlapping pair beside public routes, and middleware on every path. */
function appWith(router: SplitRouter<unknown>) {
  const app = new Hono({ router: router as never });
  const seen: string[] = [];
  app.use(async (c, next) => {
    seen.push(`mw ${c.req.path}`);
    await next();
  });
  app.get("/pub/rate", (c) => c.text("rate"));
  app.get("/pub/transaction/:id", (c) => c.text(`public ${c.req.param("id")}`));
  app.get("/console/transactions/export", (c) => c.text("export"));
  app.get("/console/transactions/:id", (c) => c.text(`console ${c.req.param("id")}`));
  app.get("/console", (c) => c.text("console home"));
  return { app, seen };
}

describe("SplitRouter", () => {
  it("answers every route as one router would, with the middleware before each", async () => {
    const { app, seen } = appWith(new SplitRouter(isConsolePath));
    const text = async (path: string) => {
      const res = await app.request(path);
      return `${res.status} ${await res.text()}`;
    };
    expect(await text("/pub/rate")).toBe("200 rate");
    expect(await text("/pub/transaction/t1")).toBe("200 public t1");
    expect(await text("/console/transactions/export")).toBe("200 export");
    expect(await text("/console/transactions/t2")).toBe("200 console t2");
    expect(await text("/console")).toBe("200 console home");
    expect(await text("/consoles")).toBe("404 404 Not Found");
    expect(seen).toEqual([
      "mw /pub/rate",
      "mw /pub/transaction/t1",
      "mw /console/transactions/export",
      "mw /console/transactions/t2",
      "mw /console",
      "mw /consoles",
    ]);
  });

  it("keeps the routes outside the prefix on one precompiled expression when the inside needs a tree", async () => {
    const router = new SplitRouter<unknown>(isConsolePath);
    const { app } = appWith(router);
    await app.request("/pub/rate");
    await app.request("/console");
    expect(router.routers).toEqual({
      outside: "SmartRouter + RegExpRouter",
      inside: "SmartRouter + TrieRouter",
    });
  });

  it("refuses a route that could match on both sides", () => {
    const app = new Hono({ router: new SplitRouter(isConsolePath) as never });
    expect(() => app.get("/:anything/x", (c) => c.text(""))).toThrow(/both sides/);
  });
});
