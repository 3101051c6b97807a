import { type ChangeFeedContract, ChangeFeeds } from "./changes.ts";
import { HoldBuckets, LeaseBuckets, LimitBuckets } from "./leases.ts";
import { Rpc, type RpcContract } from "./rpc.ts";
import { Commands, Events, type StreamContract, WebhookWork } from "./streams.ts";

/** Every process that connects to NATS. Each has its own credentials and nothing more than its row below. */
export const SERVICE_NAMES = [
  "gateway",
  "pricing",
  "banking",
  "orders",
  "chain-watcher",
  "webhook-dispatcher",
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The order launchers start services in: the gateway last, so it answers once the rest can. */
export const START_ORDER = [
  "pricing",
  "banking",
  "chain-watcher",
  "orders",
  "webhook-dispatcher",
  "gateway",
] as const satisfies readonly ServiceName[];

/** A durable JetStream consumer: which subject it reads and under which name the server keeps its position. */
export interface ConsumerContract<C extends StreamContract = StreamContract> {
  readonly contract: C;
  readonly durable: string;
}
const consumer = <C extends StreamContract>(contract: C, durable: string): ConsumerContract<C> => ({
  contract,
  durable,
});

/** The durable consumers; services spread these into `consume(...)`, so the names exist only here. */
export const Consumers = {
  bankingPayouts: consumer(Commands.bankingPayout, "banking-payouts"),
  ordersFiatDeposits: consumer(Events.fiatDepositReceived, "orders-fiat-deposits"),
  ordersChainDeposits: consumer(Events.depositObserved, "orders-chain-deposits"),
  ordersPayoutResults: consumer(Events.payoutResult, "orders-payout-results"),
  ordersTransferResults: consumer(Events.transferResult, "orders-transfer-results"),
  chainWatcherTransfers: consumer(Commands.chainTransfer, "chain-watcher-transfers"),
  /** Settled offramps and payments: their deposit addresses become due for consolidation. */
  chainWatcherSettledOrders: consumer(Events.orderStatusChanged, "chain-watcher-settled-orders"),
  chainWatcherSettledPayments: consumer(Events.paymentSettled, "chain-watcher-settled-payments"),
  webhookOrders: consumer(Events.orderStatusChanged, "webhook-dispatcher-orders"),
  webhookPayments: consumer(Events.paymentSettled, "webhook-dispatcher-payments"),
  ordersWebhookExceptions: consumer(Events.webhookExceptions, "orders-webhook-exceptions"),
  ordersChainExceptions: consumer(Events.chainExceptions, "orders-chain-exceptions"),
  webhookExceptionResolved: consumer(Events.exceptionResolved, "webhook-dispatcher-exception-resolved"),
  chainWatcherExceptionResolved: consumer(Events.exceptionResolved, "chain-watcher-exception-resolved"),
} as const;

/** What one service does on NATS. The server's permissions for the service are derived from this alone. */
export interface ServiceMessaging {
  /** Request/reply subjects it answers (in its queue group). */
  readonly serves: readonly RpcContract[];
  /** Request/reply subjects it calls. */
  readonly calls: readonly RpcContract[];
  /** Events and commands it publishes: it is their only publisher. */
  readonly publishes: readonly StreamContract[];
  readonly consumes: readonly ConsumerContract[];
  /** NATS KV buckets it alone writes (change feeds, leases); no other service may write to them. */
  readonly buckets: readonly string[];
  /**
   * Other services' change feeds it watches, read-only, to drop answers it keeps from their owner (the
   * gateway's and orders' copies of pricing's rates): it may create a watch of the bucket, never write
   * or delete.
   */
  readonly follows: readonly ChangeFeedContract[];
  /** Work-queue streams of its own: it alone publishes to them and pulls from them with one durable. */
  readonly workQueues: readonly WorkQueueContract[];
}

/** A service's private work-queue stream: one subject it publishes, one durable it consumes with. */
export interface WorkQueueContract {
  readonly stream: string;
  readonly subject: string;
  readonly durable: string;
}

export const MESSAGING: Readonly<Record<ServiceName, ServiceMessaging>> = {
  gateway: {
    serves: [],
    calls: [
      Rpc.ratesGet,
      Rpc.marketRateSet,
      Rpc.marketRateDelete,
      Rpc.marketRateGet,
      Rpc.marketRateHistory,
      Rpc.profileSet,
      Rpc.profilesGet,
      Rpc.banksList,
      Rpc.accountsRegister,
      Rpc.accountsLookup,
      Rpc.accountsList,
      Rpc.onrampCreate,
      Rpc.offrampCreate,
      Rpc.transactionGet,
      Rpc.transactionList,
      Rpc.transactionExport,
      Rpc.transactionTimeline,
      Rpc.transactionOverview,
      Rpc.transactionExportNext,
      Rpc.quoteCreate,
      Rpc.paymentCreate,
      Rpc.paymentGet,
      Rpc.paymentList,
      Rpc.sandboxDeposit,
      Rpc.webhookConfigGet,
      Rpc.webhookConfigUpdate,
      Rpc.webhookSecretRotate,
      Rpc.webhookTest,
      Rpc.webhookDeliveries,
      Rpc.webhookRedeliver,
      Rpc.webhookDeliveryPage,
      Rpc.exceptionList,
      Rpc.exceptionResolve,
      Rpc.fundRefund,
      Rpc.reconciliation,
      Rpc.chainTreasury,
      Rpc.chainReindex,
    ],
    publishes: [],
    consumes: [],
    buckets: [ChangeFeeds.gateway.bucket, LimitBuckets.gateway.bucket],
    follows: [ChangeFeeds.pricing],
    workQueues: [],
  },
  pricing: {
    serves: [
      Rpc.ratesGet,
      Rpc.marketRateSet,
      Rpc.marketRateDelete,
      Rpc.marketRateGet,
      Rpc.marketRateHistory,
      Rpc.profileSet,
      Rpc.profilesGet,
    ],
    calls: [],
    publishes: [],
    consumes: [],
    buckets: [ChangeFeeds.pricing.bucket],
    follows: [],
    workQueues: [],
  },
  banking: {
    serves: [
      Rpc.banksList,
      Rpc.accountsRegister,
      Rpc.accountsLookup,
      Rpc.accountsList,
      Rpc.accountsGet,
      Rpc.accountsResolve,
      Rpc.virtualAccountOpen,
      Rpc.virtualAccountClose,
      Rpc.kycVerify,
      Rpc.sandboxFiatDeposit,
      Rpc.payoutsOfDay,
    ],
    calls: [Rpc.addressAllocate],
    publishes: [Events.fiatDepositReceived, Events.payoutResult],
    consumes: [Consumers.bankingPayouts],
    buckets: [HoldBuckets.banking.bucket],
    follows: [],
    workQueues: [],
  },
  orders: {
    serves: [
      Rpc.onrampCreate,
      Rpc.offrampCreate,
      Rpc.transactionGet,
      Rpc.transactionList,
      Rpc.transactionExport,
      Rpc.transactionTimeline,
      Rpc.transactionOverview,
      Rpc.transactionExportNext,
      Rpc.quoteCreate,
      Rpc.paymentCreate,
      Rpc.paymentGet,
      Rpc.paymentList,
      Rpc.sandboxDeposit,
      Rpc.exceptionList,
      Rpc.exceptionResolve,
      Rpc.fundRefund,
      Rpc.reconciliation,
    ],
    calls: [
      Rpc.payoutsOfDay,
      Rpc.transfersStatus,
      Rpc.kycVerify,
      Rpc.tokenInfo,
      Rpc.ratesGet,
      Rpc.accountsResolve,
      Rpc.accountsGet,
      Rpc.addressAllocate,
      Rpc.virtualAccountOpen,
      Rpc.virtualAccountClose,
      Rpc.sandboxFiatDeposit,
      Rpc.sandboxChainDeposit,
    ],
    publishes: [
      Events.orderStatusChanged,
      Events.paymentSettled,
      Commands.chainTransfer,
      Commands.bankingPayout,
      Events.exceptionResolved,
    ],
    consumes: [
      Consumers.ordersFiatDeposits,
      Consumers.ordersChainDeposits,
      Consumers.ordersPayoutResults,
      Consumers.ordersTransferResults,
      Consumers.ordersWebhookExceptions,
      Consumers.ordersChainExceptions,
    ],
    buckets: [HoldBuckets.orders.bucket],
    follows: [ChangeFeeds.pricing],
    workQueues: [],
  },
  "chain-watcher": {
    serves: [
      Rpc.addressAllocate,
      Rpc.tokenInfo,
      Rpc.sandboxChainDeposit,
      Rpc.transfersStatus,
      Rpc.chainTreasury,
      Rpc.chainReindex,
    ],
    calls: [],
    publishes: [Events.depositObserved, Events.transferResult, Events.chainExceptions],
    consumes: [
      Consumers.chainWatcherTransfers,
      Consumers.chainWatcherSettledOrders,
      Consumers.chainWatcherSettledPayments,
      Consumers.chainWatcherExceptionResolved,
    ],
    buckets: [LeaseBuckets.chainWatcher.bucket, HoldBuckets.chainWatcher.bucket],
    follows: [],
    workQueues: [],
  },
  "webhook-dispatcher": {
    serves: [
      Rpc.webhookConfigGet,
      Rpc.webhookConfigUpdate,
      Rpc.webhookSecretRotate,
      Rpc.webhookTest,
      Rpc.webhookDeliveries,
      Rpc.webhookRedeliver,
      Rpc.webhookDeliveryPage,
    ],
    calls: [],
    publishes: [Events.webhookExceptions],
    consumes: [Consumers.webhookOrders, Consumers.webhookPayments, Consumers.webhookExceptionResolved],
    buckets: [ChangeFeeds.webhooks.bucket, WebhookWork.lanesBucket],
    follows: [],
    workQueues: [
      { stream: WebhookWork.stream.name, subject: WebhookWork.deliver.subject, durable: WebhookWork.durable },
    ],
  },
};

/**
 * The prefix of a service's reply inboxes. Each service's is its own, so no service may subscribe to
 * (and read) the replies another service is waiting for.
 */
export const inboxPrefix = (service: ServiceName): string => `_INBOX.${service}`;
