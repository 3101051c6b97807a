import { type CallOptions, createTransport, type RampClientOptions } from "./transport.ts";
import type {
  BankAccountDto,
  BankAccountQuery,
  BankDto,
  BankQuery,
  CreatePaymentRequest,
  DeliveriesQuery,
  DeliveryAttemptDto,
  OfframpRequest,
  OnrampRequest,
  PaymentDto,
  PublicBankQuery,
  QuoteDto,
  QuoteRequest,
  RateQuery,
  RatesDto,
  RegisterBankAccountRequest,
  SandboxAcceptedDto,
  SandboxFiatDepositRequest,
  SandboxPaymentDepositRequest,
  SandboxTokenDepositRequest,
  TransactionDto,
  TransactionFilter,
  TransactionListQuery,
  TransactionPage,
  UpdateWebhookRequest,
  WebhookConfigDto,
  WebhookTestQuery,
  WebhookTestResultDto,
} from "./types.ts";

const seg = (id: string) => encodeURIComponent(id);

export interface RampClient {
  rates: {
    /** Latest onramp and offramp rates for a currency, the business fee already applied. */
    get(query: RateQuery, call?: CallOptions): Promise<RatesDto>;
  };
  banks: {
    list(query?: BankQuery, call?: CallOptions): Promise<BankDto[]>;
    /** The unprefixed public list (`/pub/bank`); needs no key and is stable enough to cache. */
    listPublic(query?: PublicBankQuery, call?: CallOptions): Promise<BankDto[]>;
  };
  bankAccounts: {
    lookup(query: BankAccountQuery, call?: CallOptions): Promise<BankAccountDto>;
    /** Idempotent per bank code and account number; answers the existing record when registered. */
    register(body: RegisterBankAccountRequest, call?: CallOptions): Promise<BankAccountDto>;
  };
  onramp: { create(body: OnrampRequest, call?: CallOptions): Promise<TransactionDto> };
  offramp: { create(body: OfframpRequest, call?: CallOptions): Promise<TransactionDto> };
  transactions: {
    get(id: string, call?: CallOptions): Promise<TransactionDto>;
    /** One page, newest first; pass the page's `nextCursor` for the next one (`""` on the last). */
    list(query?: TransactionListQuery, call?: CallOptions): Promise<TransactionPage>;
    /** Every order matching the filter, newest first, page after page. */
    iterate(filter?: TransactionFilter, call?: CallOptions): AsyncIterable<TransactionDto>;
    /** The CSV export (header row, then one RFC 4180 row per order), as text. */
    export(filter?: TransactionFilter, call?: CallOptions): Promise<string>;
  };
  quotes: {
    /** A locked rate; pass its `id` as `quoteId` to an onramp or offramp within its lifetime. */
    create(body: QuoteRequest, call?: CallOptions): Promise<QuoteDto>;
  };
  payments: {
    create(body: CreatePaymentRequest, call?: CallOptions): Promise<PaymentDto>;
    get(id: string, call?: CallOptions): Promise<PaymentDto>;
  };
  webhooks: {
    /** Only the fields sent change; `""` clears a URL. The answer carries the key's secret. */
    update(body: UpdateWebhookRequest, call?: CallOptions): Promise<WebhookConfigDto>;
    /** Sends a signed sample now; a receiver that refuses it is reported in the result, not thrown. */
    test(query?: WebhookTestQuery, call?: CallOptions): Promise<WebhookTestResultDto>;
    deliveries(query?: DeliveriesQuery, call?: CallOptions): Promise<DeliveryAttemptDto[]>;
    redeliver(deliveryId: string, call?: CallOptions): Promise<WebhookTestResultDto>;
  };
  /** Sandbox deployments only: stand in for the payer's bank transfer or chain deposit. */
  sandbox: {
    onrampFiatDeposit(
      id: string,
      body?: SandboxFiatDepositRequest,
      call?: CallOptions,
    ): Promise<SandboxAcceptedDto>;
    offrampTokenDeposit(
      id: string,
      body?: SandboxTokenDepositRequest,
      call?: CallOptions,
    ): Promise<SandboxAcceptedDto>;
    paymentDeposit(
      id: string,
      body?: SandboxPaymentDepositRequest,
      call?: CallOptions,
    ): Promise<SandboxAcceptedDto>;
  };
}

/** One typed method per public route; every POST and PATCH carries an `Idempotency-Key`. */
export function createRampClient(opts: RampClientOptions): RampClient {
  const send = createTransport(opts);
  return {
    rates: {
      get: (query, call) => send({ method: "GET", path: "/pub/v2/rate", query }, call),
    },
    banks: {
      list: (query, call) => send({ method: "GET", path: "/pub/v2/bank", query }, call),
      listPublic: (query, call) => send({ method: "GET", path: "/pub/bank", query, auth: false }, call),
    },
    bankAccounts: {
      lookup: (query, call) => send({ method: "GET", path: "/pub/v2/bank-account", query }, call),
      register: (body, call) => send({ method: "POST", path: "/pub/v2/bank-account", body }, call),
    },
    onramp: { create: (body, call) => send({ method: "POST", path: "/pub/v2/onramp", body }, call) },
    offramp: { create: (body, call) => send({ method: "POST", path: "/pub/v2/offramp", body }, call) },
    transactions: {
      get: (id, call) => send({ method: "GET", path: `/pub/v2/transaction/${seg(id)}` }, call),
      list: (query, call) => send({ method: "GET", path: "/pub/v2/transactions", query }, call),
      async *iterate(filter, call) {
        let cursor: string | undefined;
        do {
          const page: TransactionPage = await send(
            { method: "GET", path: "/pub/v2/transactions", query: { ...filter, limit: 100, cursor } },
            call,
          );
          yield* page.data;
          cursor = page.nextCursor || undefined;
        } while (cursor);
      },
      export: (filter, call) =>
        send({ method: "GET", path: "/pub/v2/transactions/export", query: filter }, call),
    },
    quotes: {
      create: (body, call) => send({ method: "POST", path: "/pub/v2/quote", body }, call),
    },
    payments: {
      create: (body, call) => send({ method: "POST", path: "/pub/v2/payment", body }, call),
      get: (id, call) => send({ method: "GET", path: `/pub/v2/payment/${seg(id)}` }, call),
    },
    webhooks: {
      update: (body, call) => send({ method: "PATCH", path: "/pub/v2/webhook", body }, call),
      test: (query, call) => send({ method: "POST", path: "/pub/v2/webhook/test", query }, call),
      deliveries: (query, call) => send({ method: "GET", path: "/pub/v2/webhook/deliveries", query }, call),
      redeliver: (deliveryId, call) =>
        send({ method: "POST", path: `/pub/v2/webhook/deliveries/${seg(deliveryId)}/redeliver` }, call),
    },
    sandbox: {
      onrampFiatDeposit: (id, body = {}, call = {}) =>
        send({ method: "POST", path: `/sandbox/v2/onramp/${seg(id)}/fiat-deposit`, body }, call),
      offrampTokenDeposit: (id, body = {}, call = {}) =>
        send({ method: "POST", path: `/sandbox/v2/offramp/${seg(id)}/token-deposit`, body }, call),
      paymentDeposit: (id, body = {}, call = {}) =>
        send({ method: "POST", path: `/sandbox/v2/payment/${seg(id)}/deposit`, body }, call),
    },
  };
}
