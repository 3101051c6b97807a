import type {
  ApiKeyDto,
  AuditEntryDto,
  AuditFilter,
  AuditQuery,
  BankAccountDto,
  BusinessDto,
  BusinessListQuery,
  ConsoleBankAccountRequest,
  ConsoleCreatedKeyDto,
  ConsoleDeliveriesQuery,
  ConsoleDeliveryPage,
  ConsoleListQuery,
  ConsoleTransactionDto,
  ConsoleTransactionExportQuery,
  ConsoleTransactionListQuery,
  ConsoleUser,
  CreateBusinessRequest,
  CreatedBusinessDto,
  CreateKeyRequest,
  CreateMemberRequest,
  CreateOperatorRequest,
  ExceptionDto,
  ExceptionQuery,
  JsonBody,
  KeyListQuery,
  MemberDto,
  MemberListQuery,
  OperatorDto,
  OverviewDto,
  OverviewQuery,
  PaymentDto,
  RateHistoryEntryDto,
  RateHistoryQuery,
  RatesDto,
  ReconciliationDto,
  ReconciliationQuery,
  RefundDto,
  RefundRequest,
  ReindexAcceptedDto,
  ReindexRequest,
  RotatedSecretDto,
  SessionDto,
  SetMarketRateRequest,
  SignInRequest,
  TokenRefundRequest,
  TotpEnrolmentDto,
  TransactionDto,
  TreasuryDto,
  UpdateBusinessRequest,
  UpdateWebhookRequest,
  WebhookSecretDto,
  WebhookTestQuery,
  WebhookTestResultDto,
} from "@ramp/contracts";
import type { z } from "zod";
import { type Query, queryString, readBody, toError } from "./http-body.ts";

export { RampApiError } from "./errors.ts";

type In<S> = S extends z.ZodType ? JsonBody<z.input<S>> : never;
/** Query filters as their parsed types: `limit` is coerced from the query string on the server; a caller passes a number. */
type Filter<S extends z.ZodType> = Partial<z.infer<S>>;
type Out<S extends z.ZodType> = z.infer<S>;
export interface Page<T> {
  data: T[];
  nextCursor: string;
}
export interface ConsoleClientOptions {
  /** The gateway's address, e.g. `http://127.0.0.1:8080`; "" in a browser on the gateway's own origin. */
  baseUrl: string;
  fetch?: typeof fetch;
}

const seg = (id: string) => encodeURIComponent(id);

/**
 * The console API for a signed-in person. In a browser the session cookie is the browser's; in Node
 * the client keeps it. Either way it keeps the CSRF token from sign-in and sends it on every write.
 */
export function createConsoleClient(opts: ConsoleClientOptions) {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const base = opts.baseUrl.replace(/\/+$/, "");
  let cookie = "";
  let csrf = "";

  async function send<T>(
    method: string,
    path: string,
    query?: Query,
    body?: unknown,
    text = false,
  ): Promise<T> {
    const headers: Record<string, string> = { accept: text ? "text/csv" : "application/json" };
    if (cookie) headers.cookie = cookie;
    if (method !== "GET" && csrf) headers["x-csrf-token"] = csrf;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await doFetch(`${base}/console/v1${path}${queryString(query)}`, {
      method,
      headers,
      credentials: "same-origin",
      redirect: "error",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = res.headers.get("set-cookie");
    if (set?.startsWith("ramp_session=")) cookie = set.split(";")[0] ?? "";
    const parsed = text && res.ok ? await res.text() : await readBody(res);
    if (!res.ok) throw toError(res, parsed);
    return parsed as T;
  }
  const session = (s: SessionDto) => {
    csrf = s.csrfToken;
    return s;
  };

  return {
    async signIn(body: In<typeof SignInRequest>): Promise<SessionDto> {
      return session(await send<SessionDto>("POST", "/session", undefined, body));
    },
    async signOut(): Promise<void> {
      await send("DELETE", "/session");
      cookie = "";
      csrf = "";
    },
    async me(): Promise<SessionDto> {
      return session(await send<SessionDto>("GET", "/me"));
    },
    totp: {
      enrol: () => send<Out<typeof TotpEnrolmentDto>>("POST", "/me/totp"),
      confirm: (code: string) => send<ConsoleUser>("POST", "/me/totp/confirm", undefined, { code }),
    },
    operators: {
      list: (q?: Filter<typeof ConsoleListQuery>) => send<Page<OperatorDto>>("GET", "/operators", q),
      create: (b: In<typeof CreateOperatorRequest>) => send<OperatorDto>("POST", "/operators", undefined, b),
      remove: (id: string) => send<void>("DELETE", `/operators/${seg(id)}`),
    },
    members: {
      list: (q?: Filter<typeof MemberListQuery>) => send<Page<MemberDto>>("GET", "/members", q),
      create: (b: In<typeof CreateMemberRequest>) => send<MemberDto>("POST", "/members", undefined, b),
      remove: (id: string) => send<void>("DELETE", `/members/${seg(id)}`),
    },
    audit: {
      list: (q?: Filter<typeof AuditQuery>) => send<Page<AuditEntryDto>>("GET", "/audit", q),
      export: (q?: Filter<typeof AuditFilter>) => send<string>("GET", "/audit/export", q, undefined, true),
    },
    keys: {
      list: (q?: Filter<typeof KeyListQuery>) => send<Page<ApiKeyDto>>("GET", "/keys", q),
      create: (b: In<typeof CreateKeyRequest>) =>
        send<Out<typeof ConsoleCreatedKeyDto>>("POST", "/keys", undefined, b),
      revoke: (id: string) => send<void>("POST", `/keys/${seg(id)}/revoke`),
      revealSecret: (id: string, password: string) =>
        send<Out<typeof WebhookSecretDto>>("POST", `/keys/${seg(id)}/webhook-secret/reveal`, undefined, {
          password,
        }),
      rotateSecret: (id: string, overlapHours?: number) =>
        send<RotatedSecretDto>("POST", `/keys/${seg(id)}/webhook-secret/rotate`, undefined, {
          ...(overlapHours === undefined ? {} : { overlapHours }),
        }),
      /** Sets the key's webhook URLs ("" clears one); saving a URL resumes a paused endpoint. */
      setWebhooks: (id: string, b: In<typeof UpdateWebhookRequest>) =>
        send<ApiKeyDto>("PATCH", `/keys/${seg(id)}`, undefined, b),
      /** Sends a signed sample delivery to the key's URL and answers how it went. */
      testWebhook: (id: string, q?: Filter<typeof WebhookTestQuery>) =>
        send<WebhookTestResultDto>("POST", `/keys/${seg(id)}/webhook-test`, q),
    },
    bankAccounts: {
      list: (q?: Filter<typeof BusinessListQuery>) => send<Page<BankAccountDto>>("GET", "/bank-accounts", q),
      create: (b: In<typeof ConsoleBankAccountRequest>) =>
        send<BankAccountDto>("POST", "/bank-accounts", undefined, b),
    },
    payments: {
      list: (q?: Filter<typeof BusinessListQuery>) => send<Page<PaymentDto>>("GET", "/payments", q),
    },
    webhooks: {
      deliveries: (q?: Filter<typeof ConsoleDeliveriesQuery>) =>
        send<ConsoleDeliveryPage>("GET", "/webhooks/deliveries", q),
      redeliver: (id: string) =>
        send<WebhookTestResultDto>("POST", `/webhooks/deliveries/${seg(id)}/redeliver`),
    },
    transactions: {
      list: (q?: Filter<typeof ConsoleTransactionListQuery>) =>
        send<Page<TransactionDto>>("GET", "/transactions", q),
      get: (id: string) => send<ConsoleTransactionDto>("GET", `/transactions/${seg(id)}`),
      export: (q?: Filter<typeof ConsoleTransactionExportQuery>) =>
        send<string>("GET", "/transactions/export", q, undefined, true),
    },
    overview: (q?: Filter<typeof OverviewQuery>) => send<OverviewDto>("GET", "/overview", q),
    exceptions: {
      list: (q?: Filter<typeof ExceptionQuery>) => send<Page<ExceptionDto>>("GET", "/exceptions", q),
      resolve: (id: string, note: string) =>
        send<void>("POST", `/exceptions/${seg(id)}/resolve`, undefined, { note }),
    },
    refunds: {
      /** A received fund that was not applied: tokens to `toAddress`, or fiat to a bank account. */
      fund: (fundId: string, b: In<typeof RefundRequest>) =>
        send<RefundDto>("POST", `/funds/${seg(fundId)}/refund`, undefined, b),
      /** An ERROR offramp's tokens (the order stays ERROR). */
      order: (orderId: string, b: In<typeof TokenRefundRequest>) =>
        send<RefundDto>("POST", `/transactions/${seg(orderId)}/refund`, undefined, b),
    },
    /** A UTC day's books; `csv: true` asks for the CSV. */
    reconciliation: (q: Filter<typeof ReconciliationQuery>) =>
      send<ReconciliationDto>("GET", "/reconciliation", q),
    reconciliationCsv: (q: Filter<typeof ReconciliationQuery>) =>
      send<string>("GET", "/reconciliation", q, undefined, true),
    treasury: () => send<TreasuryDto>("GET", "/treasury"),
    reindex: (chain: string, b: In<typeof ReindexRequest>) =>
      send<ReindexAcceptedDto>("POST", `/chains/${seg(chain)}/reindex`, undefined, b),
    businesses: {
      list: (q?: Filter<typeof ConsoleListQuery>) => send<Page<BusinessDto>>("GET", "/businesses", q),
      create: (b: In<typeof CreateBusinessRequest>) =>
        send<Out<typeof CreatedBusinessDto>>("POST", "/businesses", undefined, b),
      update: (id: string, b: In<typeof UpdateBusinessRequest>) =>
        send<BusinessDto>("PATCH", `/businesses/${seg(id)}`, undefined, b),
    },
    rates: {
      get: (currency: string) => send<RatesDto>("GET", `/rates/${seg(currency)}`),
      set: (currency: string, b: In<typeof SetMarketRateRequest>) =>
        send<RatesDto>("PUT", `/rates/${seg(currency)}`, undefined, b),
      remove: (currency: string) => send<void>("DELETE", `/rates/${seg(currency)}`),
      history: (q?: Filter<typeof RateHistoryQuery>) =>
        send<Page<RateHistoryEntryDto>>("GET", "/rates/history", q),
    },
  };
}
export type ConsoleClient = ReturnType<typeof createConsoleClient>;
