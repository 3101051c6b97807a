import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import type { Context } from "hono";
import type { GatewayEnv } from "../env.ts";
import type { Register } from "../register.ts";

/** Sandbox: each call enters the same path production input takes (rail inbound, chain observation). */
export function sandboxRoutes(register: Register, nc: NatsConnection) {
  const deposit = async (
    c: Context<GatewayEnv>,
    kind: "onramp" | "offramp" | "payment",
    id: string,
    amount?: string,
  ) => {
    const { reference } = await callRpc(
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
    return { accepted: true as const, reference };
  };

  register(Routes.sandboxOnrampFiatDeposit, (c, { params, body }) =>
    deposit(c, "onramp", params.id, body.fiatAmount),
  );
  register(Routes.sandboxOfframpTokenDeposit, (c, { params, body }) =>
    deposit(c, "offramp", params.id, body.amount),
  );
  register(Routes.sandboxPaymentDeposit, (c, { params }) => deposit(c, "payment", params.id));
}
