import { badRequest, Consumers, HoldBuckets, notFound, Rpc } from "@ramp/contracts";
import { bootService, callRpc, consume, createRateCache, createServiceClaims, serveRpc } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { OrdersConfig } from "./config.ts";
import { scopedKey } from "./idempotency/once-per-key.ts";
import { createOfframp, createOnramp } from "./orders/create-orders.ts";
import { startExpirySweeper } from "./orders/expiry.ts";
import { createLifecycle } from "./orders/lifecycle.ts";
import { listTransactions } from "./orders/list-transactions.ts";
import { toDto } from "./orders/order-doc.ts";
import { createOrdersStore } from "./orders/orders-store.ts";
import { transactionOverview } from "./orders/overview.ts";
import { createReceivedFunds } from "./orders/received-funds.ts";
import { serveTransactionExports } from "./orders/transaction-export.ts";
import { transactionTimeline } from "./orders/transaction-timeline.ts";
import { createPayments, paymentDto } from "./payments/payments.ts";
import { createQuote } from "./quotes/locked-quotes.ts";
import { createQuoteStore } from "./quotes/quote-store.ts";

const QUEUE = "orders";

export async function startOrders(config: OrdersConfig) {
  return bootService("orders", config, async ({ nc, js, db, log }) => {
    const claims = await createServiceClaims(nc, db, HoldBuckets.orders, {
      replicas: config.NATS_STREAM_REPLICAS,
      log,
    });
    const store = createOrdersStore({ db, js, claims, log });
    await store.init();
    const payments = createPayments({ db, nc, js, claims, log, config });
    await payments.init();
    const funds = createReceivedFunds(db);
    await funds.init();
    const lifecycle = createLifecycle({ nc, store, payments, funds, log });
    const quotes = createQuoteStore({ db, claims });
    const rates = createRateCache(nc, log);
    const createDeps = { nc, rates, store, quotes, config };

    const parts = [
      rates,
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
      serveRpc(nc, Rpc.transactionList, QUEUE, log, (req) => listTransactions(store, req)),
      serveRpc(nc, Rpc.transactionTimeline, QUEUE, log, (req) => transactionTimeline(store, funds, req)),
      serveRpc(nc, Rpc.transactionOverview, QUEUE, log, (req) => transactionOverview(store, req)),
      serveTransactionExports({ nc, store, log, queue: QUEUE }),
      serveRpc(nc, Rpc.quoteCreate, QUEUE, log, async ({ businessId, body }, ctx) => {
        const quote = await createQuote(createDeps, businessId, body, ctx.trace);
        ctx.log.info({ quoteId: quote.id, type: quote.type }, "quote created");
        return quote;
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
        ...Consumers.ordersFiatDeposits,
        log,
        handler: (ev, c) => lifecycle.onFiatDeposit(ev, c.trace),
      }),
      await consume(nc, {
        ...Consumers.ordersChainDeposits,
        log,
        handler: (ev, c) => lifecycle.onChainDeposit(ev, c.trace),
      }),
      await consume(nc, {
        ...Consumers.ordersPayoutResults,
        log,
        handler: (ev, c) => lifecycle.onPayoutResult(ev, c.trace),
      }),
      await consume(nc, {
        ...Consumers.ordersTransferResults,
        log,
        handler: (ev, c) => lifecycle.onTransferResult(ev, c.trace),
      }),
      store.startSweeper(),
      startExpirySweeper({ nc, store, payments, log, intervalMs: config.EXPIRY_SWEEP_MS }),
      payments.startSweeper(),
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
          // The edge allows 18 decimals; the token itself may have fewer.
          if (amount !== undefined && new Decimal(amount).decimalPlaces() > order.decimals)
            throw badRequest(`amount must have at most ${order.decimals} decimal places`);
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
