import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_ADDRESS_LENGTH } from "./addresses.ts";
import { CreatePaymentRequest } from "./http/payments.ts";
import { QuoteRequest } from "./http/quotes.ts";
import { OfframpRequest, OnrampRequest } from "./http/transactions.ts";
import { parseJsonText } from "./json-text.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { boundedString, TEXT_MAX } from "./text.ts";
import { formatIssues } from "./validation.ts";

const messages = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? [] : formatIssues(r.error.issues);
};
const field = (schema: z.ZodType) => z.strictObject({ f: schema });

/** C0 controls, DEL and C1 controls (NEL among them). */
const CONTROLS = [..."\u0000\u0001\t\n\r\u001b\u001f\u007f\u0080\u0085\u009f"];
/** Halves of a surrogate pair on their own. */
const LONE_SURROGATES = ["\ud800", "\udfff"];

describe("boundedString", () => {
  it("takes up to its cap, and names the cap past it", () => {
    const s = field(boundedString(5));
    expect(messages(s, { f: "" })).toEqual([]);
    expect(messages(s, { f: "héllo" })).toEqual([]);
    expect(messages(s, { f: "hello!" })).toEqual(["f must be at most 5 characters"]);
    expect(messages(field(boundedString(5, { min: 1 })), { f: "" })).toEqual(["f should not be empty"]);
  });

  it("refuses every control character and unpaired surrogate, anywhere in the string", () => {
    const s = field(boundedString(50));
    for (const c of [...CONTROLS, ...LONE_SURROGATES]) {
      expect(messages(s, { f: `a${c}b` }), JSON.stringify(c)).toEqual([
        "f must not contain control characters or unpaired surrogates",
      ]);
    }
    // Letters of any script, emoji and the replacement character are text.
    expect(messages(s, { f: "Adébáyọ̀ 王 🙂 \ufffd" })).toEqual([]);
  });

  it("checks the cap before anything the field adds: an over-long value is never looked at", () => {
    let looked = 0;
    const s = field(
      boundedString(10).refine(() => {
        looked++;
        return false;
      }, "is wrong"),
    );
    expect(messages(s, { f: "x".repeat(60_000) })).toEqual(["f must be at most 10 characters"]);
    expect(messages(s, { f: "\u0000" })).toEqual([
      "f must not contain control characters or unpaired surrogates",
    ]);
    expect(looked).toBe(0);
    expect(messages(s, { f: "fine" })).toEqual(["f is wrong"]);
  });
});

/** What the gateway hands a schema: the body as parsed from its JSON text. */
const body = (value: object) => parseJsonText(JSON.stringify(value));
const SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
/** Base58 digits that decode to a huge number: what made decoding cost seconds. */
const HUGE = "2".repeat(60_000);
const TOO_LONG_ADDRESS = `must be at most ${MAX_ADDRESS_LENGTH} characters`;

describe("address fields are capped before they are decoded", () => {
  it("a 60 KB mint or recipient gets the length message alone, on every route that takes one", () => {
    const onramp = { currency: "NGN", chain: "SOLANA", mint: SOLANA_USDC, recipient: SOLANA_USDC, amount: 1 };
    expect(messages(OnrampRequest, body({ ...onramp, mint: HUGE }))).toEqual([`mint ${TOO_LONG_ADDRESS}`]);
    expect(messages(OnrampRequest, body({ ...onramp, recipient: HUGE }))).toEqual([
      `recipient ${TOO_LONG_ADDRESS}`,
    ]);
    const offramp = { accountNumber: "0123456789", bankCode: "000013", currency: "NGN", amount: 1 };
    expect(messages(OfframpRequest, body({ ...offramp, mint: HUGE }))).toEqual([`mint ${TOO_LONG_ADDRESS}`]);
    expect(
      messages(QuoteRequest, body({ type: "OFF_RAMP", currency: "NGN", mint: HUGE, amount: 1 })),
    ).toEqual([`mint ${TOO_LONG_ADDRESS}`]);
    expect(messages(CreatePaymentRequest, body({ chain: "SOLANA", mint: HUGE, amount: 1 }))).toEqual([
      `mint ${TOO_LONG_ADDRESS}`,
    ]);
  });

  it("free text is capped at 200 characters and refuses a NUL", () => {
    const offramp = {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      mint: SOLANA_USDC,
      amount: 1,
    };
    expect(
      messages(OfframpRequest, body({ ...offramp, description: "d".repeat(TEXT_MAX.freeText) })),
    ).toEqual([]);
    expect(messages(OfframpRequest, body({ ...offramp, description: "d".repeat(201) }))).toEqual([
      "description must be at most 200 characters",
    ]);
    expect(messages(OfframpRequest, body({ ...offramp, description: "a\u0000b" }))).toEqual([
      "description must not contain control characters or unpaired surrogates",
    ]);
  });
});

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  maxLength?: number;
  pattern?: string;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

describe("the OpenAPI document shows every string the API takes as bounded and control-free", () => {
  const doc = buildOpenApiDocument();
  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;

  /** Each string schema under `schema`, with where it is. */
  function* strings(schema: Schema, at: string): Generator<[string, Schema]> {
    if (schema.$ref) {
      yield* strings(components[schema.$ref.replace("#/components/schemas/", "")] ?? {}, at);
      return;
    }
    const types = [schema.type].flat();
    if (types.includes("string") && !schema.enum) yield [at, schema];
    for (const [name, p] of Object.entries(schema.properties ?? {})) yield* strings(p, `${at}.${name}`);
    if (schema.items) yield* strings(schema.items, `${at}[]`);
    for (const s of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
      yield* strings(s, at);
  }

  const inputs: [string, Schema][] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const op = item[method];
      if (!op) continue;
      for (const p of op.parameters ?? []) {
        // Headers (Idempotency-Key) are checked by their own schema; see idempotency.test.ts.
        if ("in" in p && p.in !== "header")
          inputs.push(...strings(p.schema as Schema, `${method} ${path} ${p.in}:${p.name}`));
      }
      const content = op.requestBody && "content" in op.requestBody ? op.requestBody.content : {};
      for (const media of Object.values(content))
        inputs.push(...strings(media.schema as Schema, `${method} ${path} body`));
    }
  }

  it("finds the string inputs (the walk itself works)", () => {
    expect(inputs.map(([at]) => at)).toEqual(
      expect.arrayContaining([
        "post /pub/v2/offramp body.description",
        "post /pub/v2/onramp body.userExternalId",
        "post /pub/v2/payment body.reference",
        "post /admin/v1/businesses body.name",
        "get /pub/v2/webhook/deliveries query:id",
        "post /pub/v2/webhook/deliveries/{deliveryId}/redeliver path:deliveryId",
      ]),
    );
  });

  it("every one has a maxLength, and a pattern (or date-time format) that a control character fails", () => {
    for (const [at, s] of inputs) {
      expect(s.maxLength, at).toBeGreaterThan(0);
      if (s.format === "date-time") continue;
      expect(s.pattern, at).toBeDefined();
      const re = new RegExp(s.pattern ?? "", "u");
      for (const c of CONTROLS) expect(re.test(`a${c}`), `${at} ${JSON.stringify(c)}`).toBe(false);
    }
  });
});
