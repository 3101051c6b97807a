import type { NatsConnection } from "@nats-io/transport-node";
import { notFound, Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { noteAudit } from "../audit/middleware.ts";
import type { KeyStore } from "../auth/api-keys.ts";
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

  register(Routes.adminRateSet, async (c, { params: { currency }, body: { onRamp, offRamp } }) => {
    noteAudit(c, { target: `rate:${currency}`, after: { onRamp, offRamp } });
    return callRpc(nc, Rpc.marketRateSet, { currency, onRamp, offRamp }, c.var.trace);
  });

  register(Routes.adminRateDelete, async (c, { params }) => {
    await callRpc(nc, Rpc.marketRateDelete, { currency: params.currency }, c.var.trace);
    noteAudit(c, { target: `rate:${params.currency}` });
  });
}
