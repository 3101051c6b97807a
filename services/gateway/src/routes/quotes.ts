import type { NatsConnection } from "@nats-io/transport-node";
import { QuoteRequest, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { Hono } from "hono";
import type { GatewayEnv } from "../env.ts";
import { reply } from "../reply.ts";
import { validateJson } from "../validate.ts";

/** `POST /pub/v2/quote`: a locked rate and amounts, turned into an order by its `quoteId`. */
export function quoteRoutes(nc: NatsConnection) {
  const app = new Hono<GatewayEnv>();
  app.post("/quote", validateJson(QuoteRequest), async (c) =>
    reply(
      c,
      await callRpc(
        nc,
        Rpc.quoteCreate,
        { businessId: c.var.caller.businessId, body: c.req.valid("json") },
        c.var.trace,
        30_000,
      ),
      201,
    ),
  );
  return app;
}
