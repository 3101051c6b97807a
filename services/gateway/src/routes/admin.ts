import type { NatsConnection } from "@nats-io/transport-node";
import {
  BusinessParams,
  CreateBusinessRequest,
  CurrencyParams,
  notFound,
  RevokeApiKeyRequest,
  Rpc,
  SetMarketRateRequest,
} from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { Hono } from "hono";
import type { KeyStore } from "../auth/api-keys.ts";
import type { GatewayEnv } from "../env.ts";
import { reply } from "../reply.ts";
import { validate, validateJson } from "../validate.ts";

/** The operator API (businesses, API keys, market rates); mounted behind the admin bearer token. */
export function adminRoutes(nc: NatsConnection, keys: KeyStore) {
  const app = new Hono<GatewayEnv>();

  const issueKeyWithSecret = async (businessId: string, trace: GatewayEnv["Variables"]["trace"]) => {
    const { apiKey, apiKeyId } = await keys.issueKey(businessId);
    const { webhookSecret } = await callRpc(nc, Rpc.webhookConfigGet, { apiKeyId }, trace);
    return { apiKey, webhookSecret };
  };

  app.post("/businesses", validateJson(CreateBusinessRequest), async (c) => {
    const { name, feeBps } = c.req.valid("json");
    const { id } = await keys.createBusiness(name, feeBps);
    await callRpc(nc, Rpc.profileSet, { businessId: id, feeBps }, c.var.trace);
    c.var.log.info({ businessId: id }, "business created");
    return reply(c, { id, name, ...(await issueKeyWithSecret(id, c.var.trace)) }, 201);
  });

  app.post("/businesses/:id/api-keys", validate("param", BusinessParams), async (c) => {
    const { id } = c.req.valid("param");
    if (!(await keys.businessExists(id))) throw notFound("Business not found");
    return reply(c, await issueKeyWithSecret(id, c.var.trace), 201);
  });

  // This replica forgets the key at once, every other replica as soon as the change feed reaches it.
  app.post("/api-keys/revoke", validateJson(RevokeApiKeyRequest), async (c) => {
    if ((await keys.revoke(c.req.valid("json").apiKey)) === "unknown") throw notFound("API key not found");
    c.var.log.info("api key revoked");
    return c.body(null, 204);
  });

  app.put(
    "/rates/:currency",
    validate("param", CurrencyParams),
    validateJson(SetMarketRateRequest),
    async (c) => {
      const { currency } = c.req.valid("param");
      const { onRamp, offRamp } = c.req.valid("json");
      const rates = await callRpc(nc, Rpc.marketRateSet, { currency, onRamp, offRamp }, c.var.trace);
      return reply(c, rates);
    },
  );

  app.delete("/rates/:currency", validate("param", CurrencyParams), async (c) => {
    await callRpc(nc, Rpc.marketRateDelete, { currency: c.req.valid("param").currency }, c.var.trace);
    return c.body(null, 204);
  });

  return app;
}
