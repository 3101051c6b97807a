// Every type the SDK's surface uses that comes from the API contract, named once here. The published
// package's declarations spell each one out in full (scripts/build.ts), so an integrator's project
// needs neither this repository's contracts nor zod.
import type {
  BankAccountQuery as BankAccountQuerySchema,
  BankAccountDto as BankAccountSchema,
  BankQuery as BankQuerySchema,
  BankDto as BankSchema,
  CreatePaymentRequest as CreatePaymentSchema,
  DeliveriesQuery as DeliveriesQuerySchema,
  DeliveryAttemptDto as DeliveryAttemptSchema,
  ErrorBody as ErrorBodyType,
  JsonBody,
  OfframpRequest as OfframpSchema,
  OnrampRequest as OnrampSchema,
  PaymentDto as PaymentType,
  PublicBankQuery as PublicBankQuerySchema,
  QuoteRequest as QuoteRequestSchema,
  QuoteDto as QuoteType,
  RateQuery as RateQuerySchema,
  RatesDto as RatesType,
  RegisterBankAccountRequest as RegisterBankAccountSchema,
  SandboxAcceptedDto as SandboxAcceptedSchema,
  SandboxFiatDepositRequest as SandboxFiatDepositSchema,
  SandboxPaymentDepositRequest as SandboxPaymentDepositSchema,
  SandboxTokenDepositRequest as SandboxTokenDepositSchema,
  TransactionFilter as TransactionFilterType,
  TransactionListQuery as TransactionListQueryType,
  TransactionPage as TransactionPageType,
  TransactionDto as TransactionType,
  UpdateWebhookRequest as UpdateWebhookSchema,
  WebhookConfigDto as WebhookConfigType,
  WebhookTestQuery as WebhookTestQuerySchema,
  WebhookTestResultDto as WebhookTestResultType,
} from "@ramp/contracts";
import type { z } from "zod";

/** What a caller sends is the schema's input (defaults still optional). */
type In<S extends z.ZodType> = JsonBody<z.input<S>>;

// Requests
export type RateQuery = In<typeof RateQuerySchema>;
export type BankQuery = In<typeof BankQuerySchema>;
export type PublicBankQuery = In<typeof PublicBankQuerySchema>;
export type BankAccountQuery = In<typeof BankAccountQuerySchema>;
export type RegisterBankAccountRequest = In<typeof RegisterBankAccountSchema>;
export type OnrampRequest = In<typeof OnrampSchema>;
export type OfframpRequest = In<typeof OfframpSchema>;
/** `limit` is coerced from the query string on the server; a caller passes a number. */
export type TransactionListQuery = Partial<TransactionListQueryType>;
export type TransactionFilter = TransactionFilterType;
export type QuoteRequest = In<typeof QuoteRequestSchema>;
export type CreatePaymentRequest = In<typeof CreatePaymentSchema>;
export type UpdateWebhookRequest = In<typeof UpdateWebhookSchema>;
export type WebhookTestQuery = In<typeof WebhookTestQuerySchema>;
export type DeliveriesQuery = Partial<z.infer<typeof DeliveriesQuerySchema>>;
export type SandboxFiatDepositRequest = In<typeof SandboxFiatDepositSchema>;
export type SandboxTokenDepositRequest = In<typeof SandboxTokenDepositSchema>;
export type SandboxPaymentDepositRequest = In<typeof SandboxPaymentDepositSchema>;

// Answers
export type RatesDto = RatesType;
export type BankDto = z.infer<typeof BankSchema>;
export type BankAccountDto = z.infer<typeof BankAccountSchema>;
export type TransactionDto = TransactionType;
export type TransactionPage = TransactionPageType;
export type QuoteDto = QuoteType;
export type PaymentDto = PaymentType;
export type WebhookConfigDto = WebhookConfigType;
export type WebhookTestResultDto = WebhookTestResultType;
export type DeliveryAttemptDto = z.infer<typeof DeliveryAttemptSchema>;
export type SandboxAcceptedDto = z.infer<typeof SandboxAcceptedSchema>;
/** The API's error body: `message` is one string, or one per invalid field. */
export type ErrorBody = ErrorBodyType;
