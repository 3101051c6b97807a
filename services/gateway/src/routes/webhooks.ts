import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc, type WebhookConfigDto } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import type { SecretSource, SecretSources } from "../idempotency/secret-fields.ts";
import type { Register } from "../register.ts";

/** A key's webhook signing secret, asked of webhook-dispatcher (which keeps it encrypted). */
export const webhookSecretOf =
  (nc: NatsConnection): SecretSource =>
  async (apiKeyId, trace) =>
    (await callRpc(nc, Rpc.webhookConfigGet, { apiKeyId }, trace)).webhookSecret;

/** The secrets answers carry, by field: what an idempotency record withholds and a replay fetches again. */
export const answerSecrets = (nc: NatsConnection): SecretSources =>
  ({
    webhookSecret: webhookSecretOf(nc),
  }) satisfies Partial<Record<keyof WebhookConfigDto, SecretSource>>;

/** The calling key's webhook configuration, test sends and delivery log (webhook-dispatcher owns them). */
export function webhookRoutes(register: Register, nc: NatsConnection) {
  register(Routes.webhookUpdate, async (c, { body }) =>
    callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId: c.var.caller.apiKeyId, body }, c.var.trace),
  );

  register(Routes.webhookTest, async (c, { query }) =>
    callRpc(nc, Rpc.webhookTest, { apiKeyId: c.var.caller.apiKeyId, type: query.type }, c.var.trace, 30_000),
  );

  register(Routes.webhookDeliveries, async (c, { query }) =>
    callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: c.var.caller.apiKeyId, ...query }, c.var.trace),
  );

  register(Routes.webhookRedeliver, async (c, { params }) =>
    callRpc(
      nc,
      Rpc.webhookRedeliver,
      { apiKeyId: c.var.caller.apiKeyId, deliveryId: params.deliveryId },
      c.var.trace,
      30_000,
    ),
  );
}
