import type { NatsConnection } from "@nats-io/transport-node";
import { notFound, type RouteInput, Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import type { Context } from "hono";
import { noteAudit } from "../audit/middleware.ts";
import type { KeyStore } from "../auth/api-keys.ts";
import type { GatewayEnv } from "../env.ts";
import type { Register } from "../register.ts";
import { businessOps } from "./business-ops.ts";

/** The operator API (businesses, API keys, market rates); registered behind the admin bearer token. */
export function adminRoutes(register: Register, nc: NatsConnection, keys: KeyStore) {
  const ops = businessOps(nc, keys);

  register(Routes.adminBusinessCreate, async (c, { body: { name, feeBps } }) => {
    const created = await ops.createBusiness(name, feeBps, c.var.trace);
    c.var.log.info({ businessId: created.id }, "business created");
    noteAudit(c, { target: `business:${created.id}`, after: { name, feeBps }, businessId: created.id });
    return created;
  });

  register(Routes.adminApiKeyIssue, async (c, { params: { id } }) => {
    if (!(await keys.businessExists(id))) throw notFound("Business not found");
    const { id: keyId, apiKey, webhookSecret } = await ops.issueKeyWithSecret(id, c.var.trace);
    noteAudit(c, { target: `api-key:${keyId}`, businessId: id });
    return { apiKey, webhookSecret };
  });

  // This replica forgets the key at once, every other replica as soon as the change feed reaches it.
  register(Routes.adminApiKeyRevoke, async (c, { body }) => {
    if ((await keys.revoke(body.apiKey)) === "unknown") throw notFound("API key not found");
    c.var.log.info("api key revoked");
  });

  const rates = rateOps(nc);
  register(Routes.adminRateSet, rates.set);
  register(Routes.adminRateDelete, rates.remove);
}

type RateInput = RouteInput<typeof Routes.adminRateSet>;

/** Setting and removing a market rate (pricing's), the same through the admin API and the console. */
export function rateOps(nc: NatsConnection) {
  return {
    async set(
      c: Context<GatewayEnv>,
      { params: { currency }, body: { onRamp, offRamp } }: Pick<RateInput, "params" | "body">,
    ) {
      const before = await callRpc(nc, Rpc.marketRateGet, { currency }, c.var.trace).catch(() => null);
      noteAudit(c, {
        target: `rate:${currency}`,
        ...(before ? { before: { onRamp: before.onRampRate.rate, offRamp: before.offRampRate.rate } } : {}),
        after: { onRamp, offRamp },
      });
      return callRpc(nc, Rpc.marketRateSet, { currency, onRamp, offRamp }, c.var.trace);
    },
    async remove(c: Context<GatewayEnv>, { params: { currency } }: Pick<RateInput, "params">) {
      await callRpc(nc, Rpc.marketRateDelete, { currency }, c.var.trace);
      noteAudit(c, { target: `rate:${currency}` });
    },
  };
}
