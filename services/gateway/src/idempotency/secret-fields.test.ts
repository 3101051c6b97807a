import type { NatsConnection } from "@nats-io/transport-node";
import { isIdempotent, type RouteDef, Routes, stringifyJson } from "@ramp/contracts";
import { newTraceContext } from "@ramp/runtime";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answerSecrets } from "../routes/webhooks.ts";
import { restoreSecrets, type SecretSources, withholdSecrets } from "./secret-fields.ts";

const SECRET = `whsec_${"cd".repeat(32)}`;
const asked: string[] = [];
const sources: SecretSources = {
  webhookSecret: async (apiKeyId) => {
    asked.push(apiKeyId);
    return SECRET;
  },
};
const trace = newTraceContext("test");

describe("secrets in kept answers", () => {
  it("are emptied for keeping and filled again from their source, the answer byte for byte as sent", async () => {
    // As the gateway writes it: fields in the DTO's order, numbers as plain decimals.
    const sent = stringifyJson({
      rampWebhookURL: "https://example.com/h",
      paymentWebhookURL: null,
      webhookSecret: SECRET,
      n: 0.0000001,
    });
    const kept = withholdSecrets(sent, "key-1", sources);
    expect(kept.body).not.toContain(SECRET);
    expect(kept.withheld).toEqual({ apiKeyId: "key-1", fields: ["webhookSecret"] });
    expect(
      await restoreSecrets(kept.body, kept.withheld ?? { apiKeyId: "", fields: [] }, sources, trace),
    ).toBe(sent);
    expect(asked).toEqual(["key-1"]);
  });

  it("keep every other answer as it is: no secret field, not an object, not JSON", () => {
    for (const body of ['{"id":"1","amount":1.50}', "[]", '"webhookSecret"', "a,b\r\n", ""]) {
      expect(withholdSecrets(body, "key-1", sources)).toEqual({ body });
    }
  });
});

describe("every idempotent route's answer", () => {
  it("has a source for each field that looks like a secret, so none is ever kept", () => {
    // Only the field names are read; no source is called.
    const covered = Object.keys(answerSecrets({} as NatsConnection));
    for (const [id, route] of Object.entries(Routes as Record<string, RouteDef>)) {
      const schema = route.ok.schema;
      if (!isIdempotent(route) || !(schema instanceof z.ZodObject)) continue;
      const secretLike = Object.keys(schema.shape).filter((f) =>
        /secret|apikey|password|accesstoken/i.test(f),
      );
      for (const field of secretLike) expect(covered, `${id}.${field}`).toContain(field);
    }
    expect(covered).toContain("webhookSecret");
  });
});
