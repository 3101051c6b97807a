import { describe, expect, it } from "vitest";
import { isChainAddress, isChainMint, normalizeAddress } from "./addresses.ts";
import { QuoteRequest } from "./http/quotes.ts";
import { TransactionListQuery } from "./http/transaction-list.ts";
import { OfframpRequest, OnrampRequest } from "./http/transactions.ts";
import { UpdateWebhookRequest } from "./http/webhooks.ts";
import { parseJsonText } from "./json-text.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { formatIssues } from "./validation.ts";

const TON_EQ = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs";
const TON_RAW = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";

describe("addresses", () => {
  it("checks each chain's format", () => {
    expect(isChainAddress("BASE", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")).toBe(true);
    expect(isChainAddress("BASE", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")).toBe(false);
    expect(isChainAddress("SOLANA", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")).toBe(true);
    expect(isChainAddress("SOLANA", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")).toBe(false);
    expect(isChainAddress("TON", TON_EQ)).toBe(true);
    expect(isChainAddress("TON", TON_RAW)).toBe(true);
    expect(isChainMint("TON", "TON")).toBe(true);
    expect(isChainMint("SOLANA", "TON")).toBe(false);
  });
  it("normalises every TON spelling and EVM case to one form", () => {
    expect(normalizeAddress("TON", TON_EQ)).toBe(TON_RAW);
    expect(normalizeAddress("TON", TON_RAW)).toBe(TON_RAW);
    expect(normalizeAddress("ETHEREUM", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913")).toBe(
      "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    );
  });
});

/** What the gateway hands a schema: the body as parsed from its JSON text. */
const body = (value: object) => parseJsonText(JSON.stringify(value));

describe("request schemas and NestJS-style messages", () => {
  const onramp = {
    currency: "NGN",
    chain: "BASE",
    mint: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  };
  it("requires exactly one of amount and fiatAmount", () => {
    expect(OnrampRequest.safeParse(body({ ...onramp, amount: 1 })).success).toBe(true);
    const both = OnrampRequest.safeParse(body({ ...onramp, amount: 1, fiatAmount: 2 }));
    expect(both.success || formatIssues(both.error.issues)).toEqual([
      "exactly one of amount and fiatAmount must be given",
    ]);
    expect(OnrampRequest.safeParse(onramp).success).toBe(false);
  });
  it("names unknown properties and enum values", () => {
    const r = OnrampRequest.safeParse(body({ ...onramp, currency: "EUR", amount: 1, foo: 1 }));
    expect(r.success || formatIssues(r.error.issues)).toEqual([
      "currency must be one of the following values: NGN, GHS, TZS, KES, ZAR, USD",
      "property foo should not exist",
    ]);
  });
  it("defaults offramp chain to SOLANA and rejects an EVM mint there", () => {
    const r = OfframpRequest.safeParse(
      body({ accountNumber: "1", bankCode: "1", currency: "NGN", mint: onramp.mint, amount: 1 }),
    );
    expect(r.success || formatIssues(r.error.issues)).toEqual(["mint must be a SOLANA token address"]);
  });
  it("an order takes quoteId or an amount, never both", () => {
    expect(OnrampRequest.safeParse(body({ ...onramp, quoteId: "q" })).success).toBe(true);
    const both = OnrampRequest.safeParse(body({ ...onramp, quoteId: "q", fiatAmount: 2 }));
    expect(both.success || formatIssues(both.error.issues)).toEqual([
      "quoteId must not be given together with amount or fiatAmount",
    ]);
  });
  it("a quote names its onramp chain; an offramp quote defaults to SOLANA", () => {
    const on = QuoteRequest.safeParse(
      body({ type: "ON_RAMP", currency: "NGN", mint: onramp.mint, amount: 1 }),
    );
    expect(on.success || formatIssues(on.error.issues)).toEqual(["chain should not be empty"]);
    const off = QuoteRequest.safeParse(
      body({ type: "OFF_RAMP", currency: "NGN", mint: onramp.mint, amount: 1 }),
    );
    expect(off.success || formatIssues(off.error.issues)).toEqual(["mint must be a SOLANA token address"]);
  });
  it("list query: limit 1–100 defaulting to 20, ISO date-times, nothing else", () => {
    expect(TransactionListQuery.parse({})).toEqual({ limit: 20 });
    expect(TransactionListQuery.parse({ limit: "100", from: "2026-01-02T03:04:05.678Z" })).toMatchObject({
      limit: 100,
    });
    const bad = TransactionListQuery.safeParse({ limit: "101", to: "2026-01-02", x: "1" });
    expect(bad.success || formatIssues(bad.error.issues)).toEqual([
      "to must be an ISO 8601 date-time",
      "limit must not be greater than 100",
      "property x should not exist",
    ]);
  });
  it("webhook update: empty string clears, neither field is an error", () => {
    expect(UpdateWebhookRequest.safeParse({ rampWebhookURL: "" }).success).toBe(true);
    expect(UpdateWebhookRequest.safeParse({}).success).toBe(false);
    expect(UpdateWebhookRequest.safeParse({ rampWebhookURL: "not a url" }).success).toBe(false);
  });
});

describe("OpenAPI", () => {
  it("describes every public route with version 2.0.0 and the api key scheme", () => {
    const doc = buildOpenApiDocument();
    expect(doc.info.version).toBe("2.0.0");
    expect(Object.keys(doc.paths ?? {})).toEqual(
      expect.arrayContaining([
        "/pub/v2/rate",
        "/pub/v2/onramp",
        "/pub/v2/offramp",
        "/pub/v2/transaction/{id}",
        "/pub/v2/transactions",
        "/pub/v2/transactions/export",
        "/pub/v2/quote",
      ]),
    );
    expect(
      Object.keys(doc.paths?.["/pub/v2/transactions/export"]?.get?.responses?.["200"]?.content ?? {}),
    ).toEqual(["text/csv; charset=utf-8"]);
    expect(doc.components?.securitySchemes?.apiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "x-api-key",
    });
  });

  it("still shows amounts as JSON numbers, though services receive them as decimal strings", () => {
    const schemas = buildOpenApiDocument().components?.schemas as Record<
      string,
      { properties: Record<string, { type?: string }> }
    >;
    for (const [dto, field] of [
      ["OnRampDto", "amount"],
      ["OnRampDto", "fiatAmount"],
      ["OffRampDto", "businessUSDCFee"],
      ["CreatePaymentDto", "amount"],
    ] as const)
      expect(schemas[dto]?.properties[field]?.type, `${dto}.${field}`).toBe("number");
  });
});
