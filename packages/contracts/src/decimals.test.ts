import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { readJsonDecimal } from "./decimals.ts";
import { SetMarketRateRequest } from "./http/admin.ts";
import { CreatePaymentRequest } from "./http/payments.ts";
import { SandboxTokenDepositRequest } from "./http/sandbox.ts";
import { OnrampRequest } from "./http/transactions.ts";
import { parseJsonText } from "./json-text.ts";
import { formatIssues } from "./validation.ts";

const read = (text: string, places = 18) => readJsonDecimal(text, places, "positive");
const messages = (r: z.ZodSafeParseResult<unknown>) => (r.success ? [] : formatIssues(r.error.issues));

describe("readJsonDecimal: one decimal policy for every JSON number", () => {
  it("reads the number's text exactly, whatever binary floating point would make of it", () => {
    expect(read("0.1")).toEqual({ ok: true, value: "0.1" });
    expect(read("1234567890.123456789012345678")).toEqual({
      ok: true,
      value: "1234567890.123456789012345678",
    });
    expect(read("9007199254740993")).toEqual({ ok: true, value: "9007199254740993" });
    expect(read("1.50")).toEqual({ ok: true, value: "1.5" });
  });

  it("accepts an exponent that still means a plain decimal", () => {
    expect(read("1.5e3")).toEqual({ ok: true, value: "1500" });
    expect(read("25E-2", 2)).toEqual({ ok: true, value: "0.25" });
    expect(read("1e-6")).toEqual({ ok: true, value: "0.000001" });
    expect(read("9.99e20")).toEqual({ ok: true, value: "999000000000000000000" });
  });

  it("refuses values that only exponent notation can write, and non-finite ones", () => {
    expect(read("1e-7")).toEqual({ ok: false, error: "must be at least 0.000001" });
    expect(read("1e21")).toEqual({ ok: false, error: "must be less than 1000000000000000000000" });
    expect(read("1e300")).toEqual({ ok: false, error: "must be less than 1000000000000000000000" });
    expect(read("1e99999999999999999999")).toEqual({ ok: false, error: "must be a finite number" });
  });

  it("refuses more decimals than the field allows, and the wrong sign", () => {
    expect(read("0.001", 2)).toEqual({ ok: false, error: "must have at most 2 decimal places" });
    expect(read("1e-7", 2)).toEqual({ ok: false, error: "must have at most 2 decimal places" });
    expect(read("0")).toEqual({ ok: false, error: "must be greater than 0" });
    expect(readJsonDecimal("-0", 6, "nonNegative")).toEqual({ ok: true, value: "0" });
    expect(readJsonDecimal("-1", 6, "nonNegative")).toEqual({ ok: false, error: "must be at least 0" });
    expect(read("NaN")).toEqual({ ok: false, error: "must be a number" });
  });
});

describe("amount fields name themselves in every 400", () => {
  const json = (text: string) => parseJsonText(text);
  it("sandbox, admin and public bodies", () => {
    expect(messages(SandboxTokenDepositRequest.safeParse(json('{"amount":1e21}')))).toEqual([
      "amount must be less than 1000000000000000000000",
    ]);
    expect(messages(SetMarketRateRequest.safeParse(json('{"onRamp":1e-7,"offRamp":1.123456789}')))).toEqual([
      "onRamp must be at least 0.000001",
      "offRamp must have at most 8 decimal places",
    ]);
    const onramp = {
      currency: "NGN",
      chain: "BASE",
      mint: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    };
    const withFee = json(`{"amount":10,"businessUSDCFee":1e300,${JSON.stringify(onramp).slice(1)}`);
    expect(messages(OnrampRequest.safeParse(withFee))).toEqual([
      "businessUSDCFee must be less than 1000000000000000000000",
    ]);
  });

  it("a JSON string where the spec says number stays a 400", () => {
    expect(messages(SandboxTokenDepositRequest.safeParse(json('{"amount":"10"}')))).toEqual([
      "amount must be a number",
    ]);
  });

  it("a FIAT payment amount has fiat's 2 decimals; a TOKEN one the token's, checked later", () => {
    const fiat = CreatePaymentRequest.safeParse(json('{"method":"FIAT","currency":"NGN","amount":0.001}'));
    expect(messages(fiat)).toEqual(["amount must have at most 2 decimal places"]);
    const token = CreatePaymentRequest.safeParse(
      json('{"chain":"BASE","mint":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","amount":0.001}'),
    );
    expect(token.success && token.data.amount).toBe("0.001");
  });
});
