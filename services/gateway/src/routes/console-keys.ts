import type { NatsConnection } from "@nats-io/transport-node";
import {
  type ApiKeyDto,
  AppError,
  type BusinessDto,
  badRequest,
  forbidden,
  notFound,
  Routes,
  Rpc,
} from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import { noteAudit } from "../audit/middleware.ts";
import type { BusinessDoc, KeyRecord, KeyStore } from "../auth/api-keys.ts";
import type { Lockout } from "../people/lockout.ts";
import { verifyPassword } from "../people/passwords.ts";
import type { PersonDoc } from "../people/people-store.ts";
import type { Register } from "../register.ts";
import { businessOps } from "./business-ops.ts";

/** A member's own business; the one an operator names (required where `required`). */
export function businessScope(person: PersonDoc, named: string | undefined): string | undefined {
  if (person.kind === "operator") return named;
  // Another business's id is answered as if it did not exist, as the public API does.
  if (named !== undefined && named !== person.businessId) throw notFound("Business not found");
  return person.businessId ?? undefined;
}

/** The business a console request is about: a member's own, the one an operator must name; it exists. */
export async function requiredBusiness(keys: KeyStore, person: PersonDoc, named: string | undefined) {
  const id = businessScope(person, named);
  if (id === undefined) throw badRequest(["businessId is required"]);
  if (!(await keys.businessExists(id))) throw notFound("Business not found");
  return id;
}

const businessDto = (d: BusinessDoc, feeBps: number): BusinessDto => ({
  id: d._id.toHexString(),
  name: d.name,
  feeBps,
  suspended: d.suspended === true,
  createdAt: d.createdAt.toISOString(),
});

/** API keys of a business and the businesses themselves, for the console. */
export function consoleKeyRoutes(register: Register, nc: NatsConnection, keys: KeyStore, lockout: Lockout) {
  const ops = businessOps(nc, keys);
  const required = (person: PersonDoc, named: string | undefined) => requiredBusiness(keys, person, named);
  // The URLs live with webhook-dispatcher, per key; its answer's secret is dropped here.
  const keyDto = async (k: KeyRecord, trace: TraceContext): Promise<ApiKeyDto> => {
    const config = await callRpc(nc, Rpc.webhookConfigGet, { apiKeyId: k.keyId }, trace);
    return {
      id: k.keyId,
      prefix: k.prefix ?? "",
      name: k.name ?? "",
      createdAt: k.createdAt.toISOString(),
      revokedAt: k.revokedAt?.toISOString() ?? null,
      rampWebhookURL: config.rampWebhookURL,
      paymentWebhookURL: config.paymentWebhookURL,
    };
  };

  register(Routes.consoleKeyList, async (c, { query: { businessId, ...page } }) => {
    const id = await required(c.var.person, businessId);
    const found = await keys.listKeys(id, page);
    return {
      data: await Promise.all(found.data.map((k) => keyDto(k, c.var.trace))),
      nextCursor: found.nextCursor,
    };
  });

  register(Routes.consoleKeyCreate, async (c, { body: { name, businessId } }) => {
    const id = await required(c.var.person, businessId);
    const created = await ops.issueKeyWithSecret(id, c.var.trace, name);
    noteAudit(c, {
      target: `api-key:${created.id}`,
      after: { name, prefix: created.apiKey.slice(0, 8) },
      businessId: id,
    });
    return created;
  });

  register(Routes.consoleKeyRevoke, async (c, { params: { id } }) => {
    const person = c.var.person;
    const scope = person.kind === "member" ? (person.businessId ?? "") : undefined;
    if ((await keys.revokeById(id, scope)) === "unknown") throw notFound("API key not found");
    noteAudit(c, { target: `api-key:${id}`, after: { revoked: true }, businessId: scope ?? null });
  });

  /** The key the request names, when the signed-in person may see it (a member: its business's only). */
  const visibleKey = async (person: PersonDoc, keyId: string) => {
    const scope = person.kind === "member" ? (person.businessId ?? "") : undefined;
    const key = await keys.keyById(keyId, scope);
    if (!key) throw notFound("API key not found");
    return key;
  };

  // A second proof before a secret is shown; wrong guesses count toward the sign-in lockout.
  register(Routes.consoleKeySecretReveal, async (c, { params: { id }, body }) => {
    const person = c.var.person;
    const key = await visibleKey(person, id);
    const wait = await lockout.retryAfter(person.email);
    if (wait > 0) {
      c.header("Retry-After", String(wait));
      throw new AppError("RATE_LIMITED", "Too many failed sign-ins; try again later");
    }
    if (!(await verifyPassword(body.password, person.passwordHash))) {
      await lockout.failed(person.email);
      throw forbidden("Wrong password");
    }
    const { webhookSecret } = await callRpc(nc, Rpc.webhookConfigGet, { apiKeyId: key.keyId }, c.var.trace);
    noteAudit(c, { target: `api-key:${key.keyId}`, businessId: key.businessId });
    return { webhookSecret };
  });

  register(Routes.consoleKeySecretRotate, async (c, { params: { id }, body: { overlapHours } }) => {
    const key = await visibleKey(c.var.person, id);
    const request = { apiKeyId: key.keyId, overlapHours };
    const rotated = await callRpc(nc, Rpc.webhookSecretRotate, request, c.var.trace);
    noteAudit(c, {
      target: `api-key:${key.keyId}`,
      after: { overlapHours, previousValidUntil: rotated.previousValidUntil },
      businessId: key.businessId,
    });
    return rotated;
  });

  // The public route's RPC: the same URL checks, and saving a URL resumes a paused endpoint.
  register(Routes.consoleKeyWebhookUpdate, async (c, { params: { id }, body }) => {
    const key = await visibleKey(c.var.person, id);
    const before = await keyDto(key, c.var.trace);
    await callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId: key.keyId, body }, c.var.trace);
    const after = await keyDto(key, c.var.trace);
    const urls = ({ rampWebhookURL, paymentWebhookURL }: ApiKeyDto) => ({
      rampWebhookURL,
      paymentWebhookURL,
    });
    noteAudit(c, {
      target: `api-key:${key.keyId}`,
      before: urls(before),
      after: urls(after),
      businessId: key.businessId,
    });
    return after;
  });

  register(Routes.consoleKeyWebhookTest, async (c, { params: { id }, query }) => {
    const key = await visibleKey(c.var.person, id);
    const request = { apiKeyId: key.keyId, type: query.type };
    const result = await callRpc(nc, Rpc.webhookTest, request, c.var.trace, 30_000);
    noteAudit(c, {
      target: `api-key:${key.keyId}`,
      after: { type: result.type, delivered: result.delivered, statusCode: result.statusCode },
      businessId: key.businessId,
    });
    return result;
  });

  register(
    Routes.consoleDeliveryList,
    async (c, { query: { businessId, keyId, orderId, status, ...page } }) => {
      const id = await required(c.var.person, businessId);
      const all = await keys.keyIdsOf(id);
      // A key of another business is answered as if it did not exist.
      if (keyId !== undefined && !all.includes(keyId)) throw notFound("API key not found");
      const request = {
        apiKeyIds: keyId ? [keyId] : all,
        ...(orderId ? { subjectId: orderId } : {}),
        ...(status ? { delivered: status === "delivered" } : {}),
        ...page,
      };
      return callRpc(nc, Rpc.webhookDeliveryPage, request, c.var.trace);
    },
  );

  register(Routes.consoleDeliveryRedeliver, async (c, { params: { id } }) => {
    const person = c.var.person;
    // The delivery's key, looked up among the keys this person may see (an operator: every key).
    const apiKeyIds = person.kind === "member" ? await keys.keyIdsOf(person.businessId ?? "") : undefined;
    const lookup = { ...(apiKeyIds ? { apiKeyIds } : {}), deliveryId: id, limit: 1 };
    const attempt = (await callRpc(nc, Rpc.webhookDeliveryPage, lookup, c.var.trace)).data[0];
    if (!attempt) throw notFound("Delivery not found");
    const request = { apiKeyId: attempt.keyId, deliveryId: id };
    const result = await callRpc(nc, Rpc.webhookRedeliver, request, c.var.trace);
    const key = await keys.keyById(attempt.keyId);
    noteAudit(c, {
      target: `delivery:${id}`,
      after: { delivered: result.delivered },
      businessId: key?.businessId ?? null,
    });
    return result;
  });

  /** The businesses as the console shows them, each with pricing's fee (one question for a page). */
  const withFees = async (docs: BusinessDoc[], trace: TraceContext) => {
    const businessIds = docs.map((d) => d._id.toHexString());
    const { feeBps } = await callRpc(nc, Rpc.profilesGet, { businessIds }, trace);
    return docs.map((d) => businessDto(d, feeBps[d._id.toHexString()] ?? 0));
  };

  register(Routes.consoleBusinessList, async (c, { query }) => {
    const page = await keys.listBusinesses(query);
    return { data: await withFees(page.data, c.var.trace), nextCursor: page.nextCursor };
  });

  register(Routes.consoleBusinessCreate, async (c, { body: { name, feeBps } }) => {
    const created = await ops.createBusiness(name, feeBps, c.var.trace);
    noteAudit(c, { target: `business:${created.id}`, after: { name, feeBps }, businessId: created.id });
    return created;
  });

  register(Routes.consoleBusinessUpdate, async (c, { params: { id }, body }) => {
    const before = await keys.business(id);
    if (!before) throw notFound("Business not found");
    const [was] = await withFees([before], c.var.trace);
    // The fee is pricing's alone; the gateway keeps only whether the business is suspended.
    if (body.feeBps !== undefined) {
      await callRpc(nc, Rpc.profileSet, { businessId: id, feeBps: body.feeBps }, c.var.trace);
    }
    const after =
      body.suspended === undefined ? before : await keys.updateBusiness(id, { suspended: body.suspended });
    if (!after || !was) throw notFound("Business not found");
    const [now] = await withFees([after], c.var.trace);
    if (!now) throw notFound("Business not found");
    noteAudit(c, {
      target: `business:${id}`,
      before: { feeBps: was.feeBps, suspended: was.suspended },
      after: { feeBps: now.feeBps, suspended: now.suspended },
      businessId: id,
    });
    return now;
  });
}
