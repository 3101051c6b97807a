import { describe, expect, it } from "vitest";
import { stringifyJson } from "./json-text.ts";

describe("stringifyJson", () => {
  it("writes every number as a plain decimal", () => {
    expect(stringifyJson({ fee: 5e-7, big: 1e21, n: [1.5, 0, -2] })).toBe(
      '{"fee":0.0000005,"big":1000000000000000000000,"n":[1.5,0,-2]}',
    );
    expect(JSON.parse(stringifyJson({ fee: 5e-7 })).fee).toBe(5e-7);
  });
});
