import { z } from "zod";
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
  UpdateWebhookRequest,
  WebhookConfigDto,
  WebhookTestQuery,
  WebhookTestResultDto,
} from "./http/webhooks.ts";

type Method = "get" | "post" | "patch" | "put" | "delete";
/** Who may call: an API key (`x-api-key`), the operator's bearer token, or anyone. */
export type RouteAuth = "apiKey" | "admin" | "none";
export interface DocumentedRoute {
  method: Method;
  path: string;
  summary: string;
  query?: z.ZodObject;
  params?: z.ZodObject;
  body?: z.ZodType;
  /** `contentType` defaults to JSON; the CSV export names its own; no `schema` means an empty answer. */
  ok: { status: number; schema?: z.ZodType; contentType?: string };
  errors: number[];
}
/**
 * A tag, who may call, whether the per-key rate limit and Idempotency-Key apply (`keyed`), and whether
 * failures are NestJS-style error bodies (health probes answer `{status}` instead).
 */
export interface RouteGroup {
  tag: string;
  auth: RouteAuth;
  keyed: boolean;
  errorBodies: boolean;
  routes: DocumentedRoute[];
}

/** The public routes, described once from the contract schemas. */
const publicRoutes: DocumentedRoute[] = [
  {
    method: "get",
    path: "/pub/v2/rate",
    summary: "Latest rates for a currency",
    query: RateQuery,
    ok: { status: 200, schema: RatesDto },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/pub/v2/bank",
    summary: "Search banks",
    query: BankQuery,
    ok: { status: 200, schema: BankDto.array() },
    errors: [],
  },
  {
    method: "get",
    path: "/pub/v2/bank-account",
    summary: "Look up a registered bank account",
    query: BankAccountQuery as unknown as z.ZodObject,
    ok: { status: 200, schema: BankAccountDto },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/pub/v2/bank-account",
    summary: "Register a bank account",
    body: RegisterBankAccountRequest,
    ok: { status: 201, schema: BankAccountDto },
    errors: [400],
  },
  {
    method: "post",
    path: "/pub/v2/quote",
    summary: "Lock a rate and amounts for an order (give its id as quoteId)",
    body: QuoteRequest,
    ok: { status: 201, schema: QuoteDto },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/pub/v2/onramp",
    summary: "Create an onramp order",
    body: OnrampRequest,
    ok: { status: 201, schema: TransactionDto },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/pub/v2/offramp",
    summary: "Create an offramp order",
    body: OfframpRequest,
    ok: { status: 201, schema: TransactionDto },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/pub/v2/transaction/{id}",
    summary: "Get an order",
    params: TransactionParams,
    ok: { status: 200, schema: TransactionDto },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/pub/v2/transactions",
    summary: "List orders, newest first, one page after cursor",
    query: TransactionListQuery,
    ok: { status: 200, schema: TransactionPage },
    errors: [400],
  },
  {
    method: "get",
    path: "/pub/v2/transactions/export",
    summary: "Every matching order as CSV (Transaction fields, then userExternalId), streamed",
    query: TransactionExportQuery,
    ok: {
      status: 200,
      schema: z.string().meta({ description: "RFC 4180 CSV with a header row" }),
      contentType: "text/csv; charset=utf-8",
    },
    errors: [400],
  },
  {
    method: "post",
    path: "/pub/v2/payment",
    summary: "Open a payment",
    body: CreatePaymentRequest,
    ok: { status: 201, schema: PaymentDto },
    errors: [400],
  },
  {
    method: "get",
    path: "/pub/v2/payment/{id}",
    summary: "Get a payment",
    params: TransactionParams,
    ok: { status: 200, schema: PaymentDto },
    errors: [400, 404],
  },
  {
    method: "patch",
    path: "/pub/v2/webhook",
    summary: "Update webhook URLs of this key",
    body: UpdateWebhookRequest,
    ok: { status: 200, schema: WebhookConfigDto },
    errors: [400],
  },
  {
    method: "post",
    path: "/pub/v2/webhook/test",
    summary: "Send a signed sample delivery",
    query: WebhookTestQuery,
    ok: { status: 200, schema: WebhookTestResultDto },
    errors: [400],
  },
  {
    method: "get",
    path: "/pub/v2/webhook/deliveries",
    summary: "Recent delivery attempts of this key",
    query: DeliveriesQuery,
    ok: { status: 200, schema: DeliveryAttemptDto.array() },
    errors: [400],
  },
  {
    method: "post",
    path: "/pub/v2/webhook/deliveries/{id}/redeliver",
    summary: "Send a delivery again now, freshly signed (its id from the delivery log)",
    params: z.object({ id: z.string() }),
    ok: { status: 200, schema: WebhookTestResultDto },
    errors: [400, 404],
  },
];

const idParams = TransactionParams;

const sandboxRoutes: DocumentedRoute[] = [
  {
    method: "post",
    path: "/sandbox/v2/onramp/{id}/fiat-deposit",
    summary:
      "Pretend the user paid the onramp's virtual account (the quoted amount unless fiatAmount is given)",
    params: idParams,
    body: SandboxFiatDepositRequest,
    ok: { status: 202, schema: SandboxAcceptedDto },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/sandbox/v2/offramp/{id}/token-deposit",
    summary:
      "Pretend the tokens reached the offramp's deposit address (the quoted amount unless amount is given)",
    params: idParams,
    body: SandboxTokenDepositRequest,
    ok: { status: 202, schema: SandboxAcceptedDto },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/sandbox/v2/payment/{id}/deposit",
    summary: "Pretend the payer sent the payment's total amount",
    params: idParams,
    body: SandboxPaymentDepositRequest,
    ok: { status: 202, schema: SandboxAcceptedDto },
    errors: [400, 404],
  },
];

const adminRoutes: DocumentedRoute[] = [
  {
    method: "post",
    path: "/admin/v1/businesses",
    summary: "Create a business and its first API key",
    body: CreateBusinessRequest,
    ok: { status: 201, schema: CreatedBusinessDto },
    errors: [400],
  },
  {
    method: "post",
    path: "/admin/v1/businesses/{id}/api-keys",
    summary: "Issue another API key for a business",
    params: BusinessParams,
    ok: { status: 201, schema: CreatedApiKeyDto },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/admin/v1/api-keys/revoke",
    summary: "Revoke an API key (every gateway replica stops accepting it)",
    body: RevokeApiKeyRequest,
    ok: { status: 204 },
    errors: [400, 404],
  },
  {
    method: "put",
    path: "/admin/v1/rates/{currency}",
    summary: "Set the market rate of a currency",
    params: CurrencyParams,
    body: SetMarketRateRequest,
    ok: { status: 200, schema: RatesDto },
    errors: [400],
  },
  {
    method: "delete",
    path: "/admin/v1/rates/{currency}",
    summary: "Remove the market rate of a currency",
    params: CurrencyParams,
    ok: { status: 204 },
    errors: [400],
  },
];

const HealthDto = z.object({ status: z.string() });
const healthRoutes: DocumentedRoute[] = [
  {
    method: "get",
    path: "/healthz",
    summary: "The process is up",
    ok: { status: 200, schema: HealthDto },
    errors: [],
  },
  {
    method: "get",
    path: "/readyz",
    summary: "NATS and the database answer; 503 with status `unavailable` until they do",
    ok: { status: 200, schema: HealthDto },
    errors: [503],
  },
];

/**
 * Every route the gateway serves, but `/openapi.json` and `/docs` (this document and its viewer).
 * The sandbox group is served only when RAMP_SANDBOX is on.
 */
export const routeGroups: RouteGroup[] = [
  { tag: "Public", auth: "apiKey", keyed: true, errorBodies: true, routes: publicRoutes },
  {
    tag: "Public",
    auth: "none",
    keyed: false,
    errorBodies: true,
    routes: [
      {
        method: "get",
        path: "/pub/bank",
        summary: "Public bank list",
        query: PublicBankQuery,
        ok: { status: 200, schema: BankDto.array() },
        errors: [],
      },
    ],
  },
  { tag: "Sandbox", auth: "apiKey", keyed: true, errorBodies: true, routes: sandboxRoutes },
  { tag: "Admin", auth: "admin", keyed: false, errorBodies: true, routes: adminRoutes },
  { tag: "Health", auth: "none", keyed: false, errorBodies: false, routes: healthRoutes },
];
