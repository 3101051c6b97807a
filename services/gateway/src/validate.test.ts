import { describe, expect, it } from "vitest";
import { queryOf } from "./validate.ts";

describe("queryOf", () => {
  it("gives each name once, a repeated one as an array, decoded as a browser encodes a form", () => {
    expect(queryOf("http://h/pub/v2/rate?currency=NGN")).toEqual({ currency: "NGN" });
    expect(queryOf("http://h/x?status=COMPLETED&status=ERROR&q=a+b%26c&empty=&flag")).toEqual({
      status: ["COMPLETED", "ERROR"],
      q: "a b&c",
      empty: "",
      flag: "",
    });
    expect(queryOf("http://h/x?a=1&a=2&a=3")).toEqual({ a: ["1", "2", "3"] });
    expect(queryOf("http://h/x")).toEqual({});
    expect(queryOf("http://h/x?a=1#frag?b=2")).toEqual({ a: "1" });
    // A name that is a prototype's is an own key like any other.
    const odd = queryOf("http://h/x?__proto__=1&__proto__=2&constructor=c");
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.entries(odd)).toEqual([
      ["__proto__", ["1", "2"]],
      ["constructor", "c"],
    ]);
  });

  it("splits a query with nothing to decode exactly as URLSearchParams does", () => {
    const queries = [
      "a=1&b=2",
      "a=1&&a=2&",
      "a==b=c&=v&k",
      "&",
      "x=%41",
      "x=a+b&y=1",
      "__proto__&toString=1",
    ];
    for (const search of queries) {
      const expected = new Map<string, string | string[]>();
      for (const [name, value] of new URLSearchParams(search)) {
        const had = expected.get(name);
        expected.set(name, had === undefined ? value : [...[had].flat(), value]);
      }
      expect(Object.entries(queryOf(`http://h/x?${search}`)), search).toEqual([...expected]);
    }
  });
});
