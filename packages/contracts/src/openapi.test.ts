import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { readJsonDecimal } from "./decimals.ts";
import { DayString, FundId } from "./http/money-ops.ts";
import { buildOpenApiDocument } from "./openapi.ts";

const doc = buildOpenApiDocument("http://localhost:8080");

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 (checked against the official schema, offline)", async () => {
    // As served: the JSON text, not the objects zod-to-openapi built.
    const served: Record<string, unknown> = JSON.parse(JSON.stringify(doc));
    const result = await new Validator().validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("gives ids a pattern that a mongodb id matches, in either case, and nothing else", () => {
    const param = doc.paths?.["/pub/v2/transaction/{id}"]?.get?.parameters?.find(
      (p) => "name" in p && p.name === "id",
    );
    const pattern =
      param && "schema" in param && param.schema && "pattern" in param.schema ? param.schema.pattern : "";
    expect(pattern).toBeTruthy();
    const re = new RegExp(pattern ?? "", "u");
    expect(re.test("65a1b2c3d4e5f60718293a4b")).toBe(true);
    expect(re.test("65A1B2C3D4E5F60718293A4B")).toBe(true);
    expect(re.test("65a1b2c3d4e5f60718293a4")).toBe(false);
    expect(re.test("zza1b2c3d4e5f60718293a4b")).toBe(false);
  });

  it("tags every operation, and puts admin routes behind the bearer token", () => {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of ["get", "post", "put", "patch", "delete"] as const) {
        const op = item[method];
        if (!op) continue;
        expect(op.tags, `${method} ${path}`).toHaveLength(1);
        if (path.startsWith("/admin/")) {
          expect(op.tags).toEqual(["Admin"]);
          expect(op.security).toEqual([{ adminToken: [] }]);
        }
        if (path.startsWith("/sandbox/")) expect(op.tags).toEqual(["Sandbox"]);
      }
    }
  });

  it("bounds a money field as the edge's reader does, so what the document allows is taken", () => {
    const offramp = doc.components?.schemas?.OffRampDto;
    const fiat = offramp && "properties" in offramp ? offramp.properties?.fiatAmount : undefined;
    expect(fiat).toMatchObject({ type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1e21 });
    expect(readJsonDecimal("999999999999999999999.99", 2, "positive").ok).toBe(true);
    expect(readJsonDecimal("1e21", 2, "positive").ok).toBe(false);
    const put = doc.paths?.["/admin/v1/rates/{currency}"]?.put?.requestBody;
    const rate = put && "content" in put ? put.content["application/json"]?.schema : undefined;
    const onRamp = rate && "properties" in rate ? rate.properties?.onRamp : undefined;
    expect(onRamp).toMatchObject({ description: "at most 8 decimal places; at least 0.000001" });
    expect(readJsonDecimal("0.0000001", 8, "positive").ok).toBe(false);
  });

  it("shows a string of a fixed shape with its own pattern, which the API takes and nothing else", () => {
    const schemaOf = (path: string, name: string) => {
      const ops = doc.paths?.[path];
      const p = (ops?.get ?? ops?.post)?.parameters?.find((q) => "name" in q && q.name === name);
      return p && "schema" in p && p.schema && "pattern" in p.schema ? p.schema.pattern : undefined;
    };
    const cases = [
      {
        pattern: schemaOf("/console/v1/reconciliation", "date"),
        schema: DayString,
        ok: "2026-11-27",
        bad: "27/11/2026",
      },
      {
        pattern: schemaOf("/console/v1/funds/{id}/refund", "id"),
        schema: FundId,
        ok: "chain:SOLANA:5xY:0",
        bad: "fund 1",
      },
    ];
    for (const { pattern, schema, ok, bad } of cases) {
      const re = new RegExp(pattern ?? "", "u");
      expect([re.test(ok), schema.safeParse(ok).success]).toEqual([true, true]);
      expect([re.test(bad), schema.safeParse(bad).success]).toEqual([false, false]);
    }
  });
});
