import { z } from "zod";
import { ConsoleAppRoutes } from "./console-app-routes.ts";
import { ConsoleRoutes } from "./console-routes.ts";
import {
  BusinessParams,
  CreateBusinessRequest,
  CreatedApiKeyDto,
  CreatedBusinessDto,
  CurrencyParams,
  RevokeApiKeyRequest,
  SetMarketRateRequest,
} from "./http/admin.ts";
import {
  BankAccountDto,
  BankAccountQuery,
  BankDto,
  BankQuery,
  PublicBankQuery,
  RegisterBankAccountRequest,
} from "./http/banks.ts";
import { CreatePaymentRequest, PaymentDto } from "./http/payments.ts";
import { QuoteDto, QuoteRequest } from "./http/quotes.ts";
import { RateQuery, RatesDto } from "./http/rates.ts";
import type { RouteDef } from "./http/route.ts";
import {
  SandboxAcceptedDto,
  SandboxFiatDepositRequest,
  SandboxPaymentDepositRequest,
  SandboxTokenDepositRequest,
} from "./http/sandbox.ts";
import { TransactionExportQuery, TransactionListQuery, TransactionPage } from "./http/transaction-list.ts";
import { OfframpRequest, OnrampRequest, TransactionDto, TransactionParams } from "./http/transactions.ts";
import {
  DeliveriesQuery,
  DeliveryAttemptDto,
  DeliveryId,
  UpdateWebhookRequest,
  WebhookConfigDto,
  WebhookTestQuery,
  WebhookTestResultDto,
} from "./http/webhooks.ts";

const HealthDto = z.object({ status: z.string() });
/** Whether a service the gateway calls answers: a responder replied, none is subscribed, or it was too slow. */
export const DependencyState = z.enum(["ready", "no responders", "no answer"]);
export type DependencyState = z.infer<typeof DependencyState>;
const ReadinessDto = HealthDto.extend({
  /** Each service the gateway calls (pricing, banking, orders, webhook-dispatcher) and its state. */
  services: z.record(z.string(), DependencyState).optional(),
});

/**
 * Every route the gateway serves, each written once: the gateway registers its routes by these
 * entries and `/openapi.json` is generated from them. A key is the route's operationId.
 */
export const Routes = {
  // Public, with an API key
  rateGet: {
    method: "get",
    path: "/pub/v2/rate",
    summary: "Latest rates for a currency",
    tag: "Public",
    auth: "apiKey",
    query: RateQuery,
    ok: { status: 200, schema: RatesDto },
    errors: [400, 404],
  },
  bankList: {
    method: "get",
    path: "/pub/v2/bank",
    summary: "Search banks",
    tag: "Public",
    auth: "apiKey",
    query: BankQuery,
    ok: { status: 200, schema: BankDto.array() },
    errors: [],
  },
  bankAccountLookup: {
    method: "get",
    path: "/pub/v2/bank-account",
    summary: "Look up a registered bank account",
    tag: "Public",
    auth: "apiKey",
    query: BankAccountQuery,
    ok: { status: 200, schema: BankAccountDto },
    errors: [400, 404],
  },
  bankAccountRegister: {
    method: "post",
    path: "/pub/v2/bank-account",
    summary: "Register a bank account",
    tag: "Public",
    auth: "apiKey",
    body: RegisterBankAccountRequest,
    ok: { status: 201, schema: BankAccountDto },
    errors: [400],
  },
  quoteCreate: {
    method: "post",
    path: "/pub/v2/quote",
    summary: "Lock a rate and amounts for an order (give its id as quoteId)",
    tag: "Public",
    auth: "apiKey",
    body: QuoteRequest,
    ok: { status: 201, schema: QuoteDto },
    errors: [400, 404],
  },
  onrampCreate: {
    method: "post",
    path: "/pub/v2/onramp",
    summary: "Create an onramp order",
    tag: "Public",
    auth: "apiKey",
    body: OnrampRequest,
    ok: { status: 201, schema: TransactionDto },
    errors: [400, 404],
  },
  offrampCreate: {
    method: "post",
    path: "/pub/v2/offramp",
    summary: "Create an offramp order",
    tag: "Public",
    auth: "apiKey",
    body: OfframpRequest,
    ok: { status: 201, schema: TransactionDto },
    errors: [400, 404],
  },
  transactionGet: {
    method: "get",
    path: "/pub/v2/transaction/{id}",
    summary: "Get an order",
    tag: "Public",
    auth: "apiKey",
    params: TransactionParams,
    ok: { status: 200, schema: TransactionDto },
    errors: [400, 404],
  },
  transactionList: {
    method: "get",
    path: "/pub/v2/transactions",
    summary: "List orders, newest first, one page after cursor",
    tag: "Public",
    auth: "apiKey",
    query: TransactionListQuery,
    ok: { status: 200, schema: TransactionPage },
    errors: [400],
  },
  transactionExport: {
    method: "get",
    path: "/pub/v2/transactions/export",
    summary: "Every matching order as CSV (Transaction fields, then userExternalId), streamed",
    tag: "Public",
    auth: "apiKey",
    query: TransactionExportQuery,
    ok: {
      status: 200,
      schema: z.string().meta({ description: "RFC 4180 CSV with a header row" }),
      contentType: "text/csv; charset=utf-8",
    },
    errors: [400],
  },
  paymentCreate: {
    method: "post",
    path: "/pub/v2/payment",
    summary: "Open a payment",
    tag: "Public",
    auth: "apiKey",
    body: CreatePaymentRequest,
    ok: { status: 201, schema: PaymentDto },
    errors: [400],
  },
  paymentGet: {
    method: "get",
    path: "/pub/v2/payment/{id}",
    summary: "Get a payment",
    tag: "Public",
    auth: "apiKey",
    params: TransactionParams,
    ok: { status: 200, schema: PaymentDto },
    errors: [400, 404],
  },
  webhookUpdate: {
    method: "patch",
    path: "/pub/v2/webhook",
    summary: "Update webhook URLs of this key",
    tag: "Public",
    auth: "apiKey",
    body: UpdateWebhookRequest,
    ok: { status: 200, schema: WebhookConfigDto },
    errors: [400],
  },
  webhookTest: {
    method: "post",
    path: "/pub/v2/webhook/test",
    summary: "Send a signed sample delivery",
    tag: "Public",
    auth: "apiKey",
    query: WebhookTestQuery,
    ok: { status: 200, schema: WebhookTestResultDto },
    errors: [400],
  },
  webhookDeliveries: {
    method: "get",
    path: "/pub/v2/webhook/deliveries",
    summary: "Recent delivery attempts of this key",
    tag: "Public",
    auth: "apiKey",
    query: DeliveriesQuery,
    ok: { status: 200, schema: DeliveryAttemptDto.array() },
    errors: [400],
  },
  webhookRedeliver: {
    method: "post",
    path: "/pub/v2/webhook/deliveries/{deliveryId}/redeliver",
    summary: "Send a delivery again now, freshly signed (its deliveryId from the delivery log)",
    tag: "Public",
    auth: "apiKey",
    params: z.strictObject({ deliveryId: DeliveryId }),
    ok: { status: 200, schema: WebhookTestResultDto },
    errors: [400, 404],
  },

  // Public, no key: the unprefixed bank list, the same Bank shape as /pub/v2/bank
  publicBankList: {
    method: "get",
    path: "/pub/bank",
    summary: "Public bank list",
    tag: "Public",
    auth: "none",
    query: PublicBankQuery,
    ok: { status: 200, schema: BankDto.array() },
    errors: [],
  },

  // Sandbox deployments only
  sandboxOnrampFiatDeposit: {
    method: "post",
    path: "/sandbox/v2/onramp/{id}/fiat-deposit",
    summary:
      "Pretend the user paid the onramp's virtual account (the quoted amount unless fiatAmount is given)",
    tag: "Sandbox",
    auth: "sandbox",
    params: TransactionParams,
    body: SandboxFiatDepositRequest,
    ok: { status: 202, schema: SandboxAcceptedDto },
    errors: [400, 404],
  },
  sandboxOfframpTokenDeposit: {
    method: "post",
    path: "/sandbox/v2/offramp/{id}/token-deposit",
    summary:
      "Pretend the tokens reached the offramp's deposit address (the quoted amount unless amount is given)",
    tag: "Sandbox",
    auth: "sandbox",
    params: TransactionParams,
    body: SandboxTokenDepositRequest,
    ok: { status: 202, schema: SandboxAcceptedDto },
    errors: [400, 404],
  },
  sandboxPaymentDeposit: {
    method: "post",
    path: "/sandbox/v2/payment/{id}/deposit",
    summary: "Pretend the payer sent the payment's total amount",
    tag: "Sandbox",
    auth: "sandbox",
    params: TransactionParams,
    body: SandboxPaymentDepositRequest,
    ok: { status: 202, schema: SandboxAcceptedDto },
    errors: [400, 404],
  },

  // Operator
  adminBusinessCreate: {
    method: "post",
    path: "/admin/v1/businesses",
    summary: "Create a business and its first API key",
    tag: "Admin",
    auth: "admin",
    body: CreateBusinessRequest,
    ok: { status: 201, schema: CreatedBusinessDto },
    errors: [400],
  },
  adminApiKeyIssue: {
    method: "post",
    path: "/admin/v1/businesses/{id}/api-keys",
    summary: "Issue another API key for a business",
    tag: "Admin",
    auth: "admin",
    params: BusinessParams,
    ok: { status: 201, schema: CreatedApiKeyDto },
    errors: [400, 404],
  },
  adminApiKeyRevoke: {
    method: "post",
    path: "/admin/v1/api-keys/revoke",
    summary: "Revoke an API key (every gateway replica stops accepting it)",
    tag: "Admin",
    auth: "admin",
    body: RevokeApiKeyRequest,
    ok: { status: 204 },
    errors: [400, 404],
  },
  adminRateSet: {
    method: "put",
    path: "/admin/v1/rates/{currency}",
    summary: "Set the market rate of a currency",
    tag: "Admin",
    auth: "admin",
    params: CurrencyParams,
    body: SetMarketRateRequest,
    ok: { status: 200, schema: RatesDto },
    errors: [400],
  },
  adminRateDelete: {
    method: "delete",
    path: "/admin/v1/rates/{currency}",
    summary: "Remove the market rate of a currency",
    tag: "Admin",
    auth: "admin",
    params: CurrencyParams,
    ok: { status: 204 },
    errors: [400],
  },

  // Orchestrators
  healthz: {
    method: "get",
    path: "/healthz",
    summary: "The process is up",
    tag: "Health",
    auth: "none",
    ok: { status: 200, schema: HealthDto },
    errors: [],
  },
  readyz: {
    method: "get",
    path: "/readyz",
    summary:
      "NATS, the database and every service the gateway calls answer (`services` says which); 503 with status `unavailable` until they do",
    tag: "Health",
    auth: "none",
    ok: { status: 200, schema: ReadinessDto },
    errors: [503],
  },

  // This reference itself
  openApiDocument: {
    method: "get",
    path: "/openapi.json",
    summary: "This OpenAPI 3.1 document",
    tag: "Reference",
    auth: "none",
    ok: { status: 200, schema: z.looseObject({ openapi: z.string() }) },
    errors: [],
  },
  docsPage: {
    method: "get",
    path: "/docs",
    summary: "The interactive API reference over /openapi.json, working offline",
    tag: "Reference",
    auth: "none",
    ok: { status: 200, schema: z.string(), contentType: "text/html; charset=utf-8" },
    errors: [],
  },
  docsScript: {
    method: "get",
    path: "/docs/assets/api-reference.js",
    summary: "The script of the reference page, served locally so /docs needs no CDN",
    tag: "Reference",
    auth: "none",
    ok: { status: 200, schema: z.string(), contentType: "text/javascript; charset=utf-8" },
    errors: [],
  },

  ...ConsoleRoutes,
  ...ConsoleAppRoutes,
} as const satisfies Record<string, RouteDef>;

export type RouteId = keyof typeof Routes;

const routeIds = new Map<RouteDef, RouteId>(
  Object.entries(Routes).map(([id, r]) => [r as RouteDef, id as RouteId]),
);

/** A route's operationId, its key in `Routes` (the audit log's `action`). */
export const routeIdOf = (route: RouteDef): RouteId | undefined => routeIds.get(route);
