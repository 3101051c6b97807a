import { badRequest, Events, notFound, Rpc } from "@ramp/contracts";
import { bootService, callRpc, consume, serveRpc, startOutboxSweeper } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { OrdersConfig } from "./config.ts";
import { ensureKeyIndex, scopedKey } from "./idempotency/once-per-key.ts";
import { createOfframp, createOnramp } from "./orders/create-orders.ts";
import { startExpirySweeper } from "./orders/expiry.ts";
import { createLifecycle } from "./orders/lifecycle.ts";
import { toDto } from "./orders/order-doc.ts";
import { createOrdersStore } from "./orders/orders-store.ts";
import { createPayments, paymentDto } from "./payments/payments.ts";

const QUEUE = "orders";

export async function startOrders(config: OrdersConfig) {
  return bootService("orders", config, async ({ nc, js, db, log }) => {
    const store = createOrdersStore({ db, js, log });
    await store.init();
    const payments = createPayments({ db, nc, js, log, config });
    await ensureKeyIndex(store.collection);
    await ensureKeyIndex(payments.collection);
    const lifecycle = createLifecycle({ db, nc, store, payments, log });
    const createDeps = { nc, store, config };

    const parts = [
      serveRpc(nc, Rpc.onrampCreate, QUEUE, log, async ({ body, ...caller }, ctx) => {
        const order = await createOnramp(createDeps, caller, body, ctx.trace);
        ctx.log.info({ orderId: order.id, chain: order.chain }, "onramp order created");
        return order;
      }),
      serveRpc(nc, Rpc.offrampCreate, QUEUE, log, async ({ body, ...caller }, ctx) => {
        const order = await createOfframp(createDeps, caller, body, ctx.trace);
        ctx.log.info({ orderId: order.id, chain: order.chain }, "offramp order created");
        return order;
      }),
      serveRpc(nc, Rpc.transactionGet, QUEUE, log, async ({ businessId, id }) => {
        const order = await store.getForBusiness(id, businessId);
        if (!order) throw notFound("Transaction not found");
        return toDto(order);
      }),
      serveRpc(nc, Rpc.paymentCreate, QUEUE, log, async ({ body, ...caller }, ctx) => {
        const payment = await payments.create(caller, body, ctx.trace);
        ctx.log.info({ paymentId: payment.id, method: payment.method }, "payment opened");
        return payment;
      }),
      serveRpc(nc, Rpc.paymentGet, QUEUE, log, async ({ businessId, id }) => {
        const payment = await payments.get(id, businessId);
        if (!payment) throw notFound("Payment not found");
        return paymentDto(payment);
      }),
      await consume(nc, {
        contract: Events.fiatDepositReceived,
        durable: "orders-fiat-deposits",
        log,
        handler: (ev, c) => lifecycle.onFiatDeposit(ev, c.trace),
      }),
      await consume(nc, {
        contract: Events.depositObserved,
        durable: "orders-chain-deposits",
        log,
        handler: (ev, c) => lifecycle.onChainDeposit(ev, c.trace),
      }),
      await consume(nc, {
        contract: Events.payoutResult,
        durable: "orders-payout-results",
        log,
        handler: (ev, c) => lifecycle.onPayoutResult(ev, c.trace),
      }),
      await consume(nc, {
        contract: Events.transferResult,
        durable: "orders-transfer-results",
        log,
        handler: (ev, c) => lifecycle.onTransferResult(ev, c.trace),
      }),
      startOutboxSweeper(js, store.collection, log),
      startExpirySweeper({ nc, store, payments, log, intervalMs: config.EXPIRY_SWEEP_MS }),
      startOutboxSweeper(js, payments.collection, log),
    ];

    if (config.RAMP_SANDBOX) {
      parts.push(
        serveRpc(nc, Rpc.sandboxDeposit, QUEUE, log, async ({ businessId, kind, id, amount, ...k }, ctx) => {
          // A retry names the same rail reference or chain transaction as the first attempt, which the
          // rail and the watcher store once: a repeat after a lost answer never pays twice.
          const idempotencyKey = scopedKey(businessId, k.idempotencyKey);
          if (kind === "payment") {
            const p = await payments.get(id, businessId);
            if (!p) throw notFound("Payment not found");
            if (p.status !== "AWAITING") throw badRequest(`Payment is ${p.status}, not awaiting funds`);
            if (p.method === "FIAT")
              return callRpc(
                nc,
                Rpc.sandboxFiatDeposit,
                { ref: id, fiatAmount: new Decimal(p.totalAmount).toFixed(2), idempotencyKey },
                ctx.trace,
              );
            return callRpc(
              nc,
              Rpc.sandboxChainDeposit,
              {
                chain: p.chain!,
                address: p.token!.address,
                mint: p.mint!,
                amount: p.totalAmount,
                idempotencyKey,
              },
              ctx.trace,
            );
          }
          const order = await store.getForBusiness(id, businessId);
          const expected = kind === "onramp" ? "ON_RAMP" : "OFF_RAMP";
          if (!order || order.transactionType !== expected) throw notFound("Transaction not found");
          if (order.status !== "INIT")
            throw badRequest(`Transaction is ${order.status}, not awaiting a deposit`);
          if (kind === "onramp") {
            return callRpc(
              nc,
              Rpc.sandboxFiatDeposit,
              { ref: id, ...(amount ? { fiatAmount: amount } : {}), idempotencyKey },
              ctx.trace,
            );
          }
          return callRpc(
            nc,
            Rpc.sandboxChainDeposit,
            {
              chain: order.chain,
              address: order.address,
              mint: order.mint,
              amount: amount ?? order.amount,
              idempotencyKey,
            },
            ctx.trace,
          );
        }),
      );
    }
    return parts;
  });
}
