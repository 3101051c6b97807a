import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ErrorBody } from "./errors.ts";
import {
  BankAccountDto,
  BankAccountQuery,
  BankDto,
  BankQuery,
  PublicBankQuery,
  RegisterBankAccountRequest,
} from "./http/banks.ts";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKey,
  idempotencyErrors,
} from "./http/idempotency.ts";
import { CreatePaymentRequest, PaymentDto } from "./http/payments.ts";
import { QuoteDto, QuoteRequest } from "./http/quotes.ts";
import { RateQuery, RatesDto } from "./http/rates.ts";
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

type Method = "get" | "post" | "patch";
interface Route {
  method: Method;
  path: string;
  summary: string;
  query?: z.ZodObject;
  params?: z.ZodObject;
  body?: z.ZodType;
  /** `contentType` defaults to JSON; the CSV export names its own. */
  ok: { status: number; schema: z.ZodType; contentType?: string };
  errors: number[];
  auth?: boolean;
}

const errorText: Record<number, string> = {
  400: "Invalid request",
  401: "Missing or invalid x-api-key",
  404: "Not found",
  ...idempotencyErrors,
  429: "Rate limited",
  503: "A dependency is unavailable; retry with backoff",
};

/** The public routes, described once from the contract schemas. */
export const publicRoutes: Route[] = [
  {
    method: "get",
    path: "/pub/v2/rate",
    summary: "Latest rates for a currency",
    query: RateQuery,
    ok: { status: 200, schema: RatesDto },
    errors: [400, 401, 404],
  },
  {
    method: "get",
    path: "/pub/v2/bank",
    summary: "Search banks",
    query: BankQuery,
    ok: { status: 200, schema: BankDto.array() },
    errors: [401],
  },
  {
    method: "get",
    path: "/pub/bank",
    summary: "Public bank list",
    query: PublicBankQuery,
    ok: { status: 200, schema: BankDto.array() },
    errors: [],
    auth: false,
  },
  {
    method: "get",
    path: "/pub/v2/bank-account",
    summary: "Look up a registered bank account",
    query: BankAccountQuery as unknown as z.ZodObject,
    ok: { status: 200, schema: BankAccountDto },
    errors: [400, 401, 404],
  },
  {
    method: "post",
    path: "/pub/v2/bank-account",
    summary: "Register a bank account",
    body: RegisterBankAccountRequest,
    ok: { status: 201, schema: BankAccountDto },
    errors: [400, 401],
  },
  {
    method: "post",
    path: "/pub/v2/quote",
    summary: "Lock a rate and amounts for an order (give its id as quoteId)",
    body: QuoteRequest,
    ok: { status: 201, schema: QuoteDto },
    errors: [400, 401, 404],
  },
  {
    method: "post",
    path: "/pub/v2/onramp",
    summary: "Create an onramp order",
    body: OnrampRequest,
    ok: { status: 201, schema: TransactionDto },
    errors: [400, 401, 404],
  },
  {
    method: "post",
    path: "/pub/v2/offramp",
    summary: "Create an offramp order",
    body: OfframpRequest,
    ok: { status: 201, schema: TransactionDto },
    errors: [400, 401, 404],
  },
  {
    method: "get",
    path: "/pub/v2/transaction/{id}",
    summary: "Get an order",
    params: TransactionParams,
    ok: { status: 200, schema: TransactionDto },
    errors: [400, 401, 404],
  },
  {
    method: "get",
    path: "/pub/v2/transactions",
    summary: "List orders, newest first, one page after cursor",
    query: TransactionListQuery,
    ok: { status: 200, schema: TransactionPage },
    errors: [400, 401],
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
    errors: [400, 401],
  },
  {
    method: "post",
    path: "/pub/v2/payment",
    summary: "Open a payment",
    body: CreatePaymentRequest,
    ok: { status: 201, schema: PaymentDto },
    errors: [400, 401],
  },
  {
    method: "get",
    path: "/pub/v2/payment/{id}",
    summary: "Get a payment",
    params: TransactionParams,
    ok: { status: 200, schema: PaymentDto },
    errors: [400, 401, 404],
  },
  {
    method: "patch",
    path: "/pub/v2/webhook",
    summary: "Update webhook URLs of this key",
    body: UpdateWebhookRequest,
    ok: { status: 200, schema: WebhookConfigDto },
    errors: [400, 401],
  },
  {
    method: "post",
    path: "/pub/v2/webhook/test",
    summary: "Send a signed sample delivery",
    query: WebhookTestQuery,
    ok: { status: 200, schema: WebhookTestResultDto },
    errors: [400, 401],
  },
  {
    method: "get",
    path: "/pub/v2/webhook/deliveries",
    summary: "Recent delivery attempts of this key",
    query: DeliveriesQuery,
    ok: { status: 200, schema: DeliveryAttemptDto.array() },
    errors: [400, 401],
  },
];

/** On every POST and PATCH: the optional key, and the mark of an answer replayed for it. */
const idempotencyKeyHeader = z.object({ [IDEMPOTENCY_KEY_HEADER]: IdempotencyKey.optional() });
const replayedHeader = z.object({
  [IDEMPOTENT_REPLAYED_HEADER]: z
    .literal("true")
    .optional()
    .meta({
      description: `Present when this is the kept answer to an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}`,
    }),
});

export function buildOpenApiDocument(serverUrl = "/") {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent("securitySchemes", "apiKey", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  for (const route of publicRoutes) {
    const idempotent = route.method !== "get";
    const responses: Record<
      string,
      {
        description: string;
        content: Record<string, { schema: z.ZodType }>;
        headers?: z.ZodObject;
      }
    > = {
      [route.ok.status]: {
        description: "Success",
        content: { [route.ok.contentType ?? "application/json"]: { schema: route.ok.schema } },
        ...(idempotent ? { headers: replayedHeader } : {}),
      },
    };
    for (const status of [...route.errors, ...(idempotent ? [409, 422] : []), 429, 503]) {
      responses[status] = {
        description: errorText[status] ?? "Error",
        content: { "application/json": { schema: ErrorBody } },
      };
    }
    registry.registerPath({
      method: route.method,
      path: route.path,
      summary: route.summary,
      security: route.auth === false ? [] : [{ [apiKey.name]: [] }],
      request: {
        ...(route.query ? { query: route.query } : {}),
        ...(route.params ? { params: route.params } : {}),
        ...(idempotent ? { headers: idempotencyKeyHeader } : {}),
        ...(route.body ? { body: { content: { "application/json": { schema: route.body } } } } : {}),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { title: "Ramp Service Public API", version: "2.0.0" },
    servers: [{ url: serverUrl }],
  });
}
