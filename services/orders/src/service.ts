import { Consumers, notFound, Rpc } from "@ramp/contracts";
import { bootService, consume, createRateCache, serveRpc } from "@ramp/runtime";
import type { OrdersConfig } from "./config.ts";
import { startExpirySweeper } from "./lifecycle/expiry.ts";
import { createLifecycle } from "./lifecycle/lifecycle.ts";
import { createExceptionsStore } from "./money/exceptions-store.ts";
import { consumeRaisedExceptions } from "./money/raised-elsewhere.ts";
import { createReconciliation } from "./money/reconciliation.ts";
import { createRefunds } from "./money/refunds.ts";
import { serveMoneyOps } from "./money/serve-money-ops.ts";
import { startStuckSweeper } from "./money/stuck.ts";
import { createOfframp, createOnramp } from "./orders/create-orders.ts";
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
import { sandboxDeposit } from "./sandbox/sandbox-deposit.ts";

const QUEUE = "orders";

export async function startOrders(config: OrdersConfig) {
  return bootService("orders", config, async ({ nc, js, db, log, claims }) => {
    const store = createOrdersStore({ db, js, claims, log });
    await store.init();
    const payments = createPayments({ db, nc, js, claims, log, config });
    await payments.init();
    const funds = createReceivedFunds(db);
    const exceptions = createExceptionsStore({ db, js, log });
    await exceptions.init();
    const refunds = createRefunds({ db, js, nc, claims, exceptions, getOrder: store.get, log });
    await refunds.init();
    await funds.init();
    const lifecycle = createLifecycle({ nc, store, payments, funds, exceptions, refunds, log });
    const stuck = startStuckSweeper({
      db,
      exceptions,
      log,
      afterMs: config.STUCK_AFTER_SECONDS * 1000,
      intervalMs: config.STUCK_SWEEP_MS,
    });
    await stuck.init();
    const reconciliation = createReconciliation({ db, nc });
    await reconciliation.init();
    const quotes = createQuoteStore({ db, claims });
    const rates = createRateCache(nc, log);
    const createDeps = { nc, rates, store, quotes, config };

    const fiatDeposits = await consume(nc, {
      ...Consumers.ordersFiatDeposits,
      log,
      handler: (ev, c) => lifecycle.onFiatDeposit(ev, c.trace),
    });
    const chainDeposits = await consume(nc, {
      ...Consumers.ordersChainDeposits,
      log,
      handler: (ev, c) => lifecycle.onChainDeposit(ev, c.trace),
    });

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
      serveRpc(nc, Rpc.paymentList, QUEUE, log, ({ businessId, ...page }) => payments.page(businessId, page)),
      fiatDeposits,
      chainDeposits,
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
      ...serveMoneyOps({ nc, exceptions, refunds, reconciliation, log, queue: QUEUE }),
      ...(await consumeRaisedExceptions(nc, exceptions, log)),
      store.startSweeper(),
      exceptions.startSweeper(),
      refunds.startSweeper(),
      stuck,
      startExpirySweeper({ nc, store, payments, log, intervalMs: config.EXPIRY_SWEEP_MS }),
      payments.startSweeper(),
    ];

    if (config.RAMP_SANDBOX)
      parts.push(
        serveRpc(nc, Rpc.sandboxDeposit, QUEUE, log, (req, ctx) =>
          sandboxDeposit(
            {
              nc,
              store,
              payments,
              depositsLagMs: () => Math.max(fiatDeposits.lagMs(), chainDeposits.lagMs()),
              maxLagMs: config.SANDBOX_DEPOSIT_MAX_LAG_MS,
            },
            req,
            ctx.trace,
          ),
        ),
      );
    return parts;
  });
}
