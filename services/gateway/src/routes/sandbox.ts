import type { NatsConnection } from "@nats-io/transport-node";
import {
  ObjectIdString,
  Rpc,
  SandboxFiatDepositRequest,
  SandboxPaymentDepositRequest,
  SandboxTokenDepositRequest,
} from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { Hono } from "hono";
import { z } from "zod";
import type { GatewayEnv } from "../env.ts";
import { reply } from "../reply.ts";
import { validate, validateJson } from "../validate.ts";

const Params = z.strictObject({ id: ObjectIdString });

/** Sandbox: each call enters the same path production input takes (rail inbound, chain observation). */
export function sandboxRoutes(nc: NatsConnection) {
  const app = new Hono<GatewayEnv>();
  const deposit = async (
    c: { var: GatewayEnv["Variables"] },
    kind: "onramp" | "offramp" | "payment",
    id: string,
    amount?: string,
  ) =>
    callRpc(
      nc,
      Rpc.sandboxDeposit,
      {
        businessId: c.var.caller.businessId,
        kind,
        id,
        ...(amount !== undefined ? { amount } : {}),
        idempotencyKey: c.var.idempotencyKey,
      },
      c.var.trace,
    );

  app.post(
    "/onramp/:id/fiat-deposit",
    validate("param", Params),
    validateJson(SandboxFiatDepositRequest),
    async (c) => {
      const { reference } = await deposit(
        c,
        "onramp",
        c.req.valid("param").id,
        c.req.valid("json").fiatAmount,
      );
      return reply(c, { accepted: true, reference }, 202);
    },
  );
  app.post(
    "/offramp/:id/token-deposit",
    validate("param", Params),
    validateJson(SandboxTokenDepositRequest),
    async (c) => {
      const { reference } = await deposit(c, "offramp", c.req.valid("param").id, c.req.valid("json").amount);
      return reply(c, { accepted: true, reference }, 202);
    },
  );
  app.post(
    "/payment/:id/deposit",
    validate("param", Params),
    validateJson(SandboxPaymentDepositRequest),
    async (c) => {
      const { reference } = await deposit(c, "payment", c.req.valid("param").id);
      return reply(c, { accepted: true, reference }, 202);
    },
  );
  return app;
}
