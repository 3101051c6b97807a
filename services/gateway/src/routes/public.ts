import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc } from "@ramp/contracts";
import type { RateCache } from "@ramp/runtime";
import { callRpc } from "@ramp/runtime";
import type { Register } from "../register.ts";

/** The public API: validated by the registrar, forwarded, mapped. No business logic here. */
export function publicRoutes(register: Register, nc: NatsConnection, rates: RateCache) {
  register(Routes.rateGet, async (c, { query }) =>
    rates.get(c.get("caller").businessId, query.currency, c.get("trace")),
  );

  register(Routes.bankList, async (c, { query }) => callRpc(nc, Rpc.banksList, query, c.var.trace));

  register(Routes.publicBankList, async (c, { query }) => callRpc(nc, Rpc.banksList, query, c.var.trace));

  register(Routes.bankAccountLookup, async (c, { query }) =>
    callRpc(nc, Rpc.accountsLookup, { businessId: c.var.caller.businessId, ...query }, c.var.trace),
  );

  register(Routes.bankAccountRegister, async (c, { body }) =>
    callRpc(nc, Rpc.accountsRegister, { businessId: c.var.caller.businessId, ...body }, c.var.trace, 30_000),
  );

  register(Routes.onrampCreate, async (c, { body }) =>
    callRpc(
      nc,
      Rpc.onrampCreate,
      { ...c.var.caller, idempotencyKey: c.var.idempotencyKey, body },
      c.var.trace,
      30_000,
    ),
  );

  register(Routes.offrampCreate, async (c, { body }) =>
    callRpc(
      nc,
      Rpc.offrampCreate,
      { ...c.var.caller, idempotencyKey: c.var.idempotencyKey, body },
      c.var.trace,
      30_000,
    ),
  );

  register(Routes.transactionGet, async (c, { params }) =>
    callRpc(nc, Rpc.transactionGet, { businessId: c.var.caller.businessId, id: params.id }, c.var.trace),
  );

  register(Routes.paymentCreate, async (c, { body }) =>
    callRpc(
      nc,
      Rpc.paymentCreate,
      { ...c.var.caller, idempotencyKey: c.var.idempotencyKey, body },
      c.var.trace,
      30_000,
    ),
  );

  register(Routes.paymentGet, async (c, { params }) =>
    callRpc(nc, Rpc.paymentGet, { businessId: c.var.caller.businessId, id: params.id }, c.var.trace),
  );
}
