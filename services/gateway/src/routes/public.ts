import type { NatsConnection } from "@nats-io/transport-node";
import {
  BankAccountQuery,
  BankQuery,
  CreatePaymentRequest,
  DeliveriesQuery,
  OfframpRequest,
  OnrampRequest,
  PublicBankQuery,
  RateQuery,
  RegisterBankAccountRequest,
  Rpc,
  TransactionParams,
  UpdateWebhookRequest,
  WebhookTestQuery,
} from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { Hono } from "hono";
import type { GatewayEnv } from "../env.ts";
import { reply } from "../reply.ts";
import { validate, validateJson } from "../validate.ts";

/** `/pub/v2/*`: authenticate (mounted by the app), validate, forward, map. No business logic here. */
export function publicRoutes(nc: NatsConnection) {
  const app = new Hono<GatewayEnv>();

  app.get("/rate", validate("query", RateQuery), async (c) => {
    const { currency } = c.req.valid("query");
    return reply(
      c,
      await callRpc(nc, Rpc.ratesGet, { businessId: c.var.caller.businessId, currency }, c.var.trace),
    );
  });

  app.get("/bank", validate("query", BankQuery), async (c) =>
    reply(c, await callRpc(nc, Rpc.banksList, c.req.valid("query"), c.var.trace)),
  );

  app.get("/bank-account", validate("query", BankAccountQuery), async (c) => {
    const q = c.req.valid("query");
    return reply(
      c,
      await callRpc(nc, Rpc.accountsLookup, { businessId: c.var.caller.businessId, ...q }, c.var.trace),
    );
  });

  app.post("/bank-account", validateJson(RegisterBankAccountRequest), async (c) => {
    const body = c.req.valid("json");
    const account = await callRpc(
      nc,
      Rpc.accountsRegister,
      { businessId: c.var.caller.businessId, ...body },
      c.var.trace,
      30_000,
    );
    return reply(c, account, 201);
  });

  app.post("/onramp", validateJson(OnrampRequest), async (c) =>
    reply(
      c,
      await callRpc(
        nc,
        Rpc.onrampCreate,
        { ...c.var.caller, idempotencyKey: c.var.idempotencyKey, body: c.req.valid("json") },
        c.var.trace,
        30_000,
      ),
      201,
    ),
  );

  app.post("/offramp", validateJson(OfframpRequest), async (c) =>
    reply(
      c,
      await callRpc(
        nc,
        Rpc.offrampCreate,
        { ...c.var.caller, idempotencyKey: c.var.idempotencyKey, body: c.req.valid("json") },
        c.var.trace,
        30_000,
      ),
      201,
    ),
  );

  app.get("/transaction/:id", validate("param", TransactionParams), async (c) => {
    const { id } = c.req.valid("param");
    return reply(
      c,
      await callRpc(nc, Rpc.transactionGet, { businessId: c.var.caller.businessId, id }, c.var.trace),
    );
  });

  app.post("/payment", validateJson(CreatePaymentRequest), async (c) =>
    reply(
      c,
      await callRpc(
        nc,
        Rpc.paymentCreate,
        { ...c.var.caller, idempotencyKey: c.var.idempotencyKey, body: c.req.valid("json") },
        c.var.trace,
        30_000,
      ),
      201,
    ),
  );

  app.get("/payment/:id", validate("param", TransactionParams), async (c) => {
    const { id } = c.req.valid("param");
    return reply(
      c,
      await callRpc(nc, Rpc.paymentGet, { businessId: c.var.caller.businessId, id }, c.var.trace),
    );
  });

  app.patch("/webhook", validateJson(UpdateWebhookRequest), async (c) =>
    reply(
      c,
      await callRpc(
        nc,
        Rpc.webhookConfigUpdate,
        { apiKeyId: c.var.caller.apiKeyId, body: c.req.valid("json") },
        c.var.trace,
      ),
    ),
  );

  app.post("/webhook/test", validate("query", WebhookTestQuery), async (c) => {
    const { type } = c.req.valid("query");
    return reply(
      c,
      await callRpc(nc, Rpc.webhookTest, { apiKeyId: c.var.caller.apiKeyId, type }, c.var.trace, 30_000),
    );
  });

  app.get("/webhook/deliveries", validate("query", DeliveriesQuery), async (c) => {
    const q = c.req.valid("query");
    return reply(
      c,
      await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: c.var.caller.apiKeyId, ...q }, c.var.trace),
    );
  });

  app.post("/webhook/deliveries/:id/redeliver", async (c) =>
    reply(
      c,
      await callRpc(
        nc,
        Rpc.webhookRedeliver,
        { apiKeyId: c.var.caller.apiKeyId, deliveryId: c.req.param("id") },
        c.var.trace,
        30_000,
      ),
    ),
  );

  return app;
}

/** `GET /pub/bank`: the unprefixed public bank list, no key needed, the same Bank shape as `/pub/v2/bank`. */
export function publicBankList(nc: NatsConnection) {
  const app = new Hono<GatewayEnv>();
  app.get("/", validate("query", PublicBankQuery), async (c) =>
    reply(c, await callRpc(nc, Rpc.banksList, c.req.valid("query"), c.var.trace)),
  );
  return app;
}
