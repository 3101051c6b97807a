import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { noteAudit } from "../audit/middleware.ts";
import type { KeyStore } from "../auth/api-keys.ts";
import type { Register } from "../register.ts";
import { requiredBusiness } from "./console-keys.ts";

/** A business's bank accounts (banking owns them) and payments (orders owns them), for the console. */
export function consoleBusinessRoutes(register: Register, nc: NatsConnection, keys: KeyStore) {
  register(Routes.consoleBankAccountList, async (c, { query: { businessId, ...page } }) => {
    const id = await requiredBusiness(keys, c.var.person, businessId);
    return callRpc(nc, Rpc.accountsList, { businessId: id, ...page }, c.var.trace);
  });

  // The public registration's RPC: the same bank name enquiry, idempotent per bank and number.
  register(Routes.consoleBankAccountCreate, async (c, { body: { businessId, ...account } }) => {
    const id = await requiredBusiness(keys, c.var.person, businessId);
    const created = await callRpc(
      nc,
      Rpc.accountsRegister,
      { businessId: id, ...account },
      c.var.trace,
      30_000,
    );
    noteAudit(c, {
      target: `bank-account:${created.id}`,
      after: { bank: created.bank, accountNumber: created.accountNumber },
      businessId: id,
    });
    return created;
  });

  register(Routes.consolePaymentList, async (c, { query: { businessId, ...page } }) => {
    const id = await requiredBusiness(keys, c.var.person, businessId);
    return callRpc(nc, Rpc.paymentList, { businessId: id, ...page }, c.var.trace);
  });
}
