import {
  AppError,
  type BankAccountDto,
  type BankAccountRecord,
  type BankDto,
  badRequest,
  COUNTRY_CURRENCY,
  type Country,
  type Currency,
  notFound,
} from "@ramp/contracts";
import { type BankRail, RailTimeoutError, withTimeout } from "../rails/bank-rail.ts";
import type { AccountsStore } from "./accounts-store.ts";

export interface AccountsDeps {
  store: AccountsStore;
  rail: BankRail;
  banks: readonly BankDto[];
  /** Asks chain-watcher for the Solana address that pays this account; idempotent per ref. */
  allocateAddress: (ref: string) => Promise<string>;
  enquiryTimeoutMs: number;
}

export const toDto = ({
  id,
  accountName,
  accountNumber,
  bank,
  address,
}: BankAccountRecord): BankAccountDto => ({
  id,
  accountName,
  accountNumber,
  bank,
  address,
});

export const bankNotFound = (code: string) => `Bank with code ${code} not found`;
export const ACCOUNT_NOT_RESOLVED = "Account could not be resolved";

/** Name enquiry with the bank: unknown bank → NOT_FOUND, unresolvable → BAD_REQUEST, slow rail → UNAVAILABLE. */
export async function resolveAccount(
  deps: Pick<AccountsDeps, "rail" | "banks" | "enquiryTimeoutMs">,
  bankCode: string,
  accountNumber: string,
): Promise<{ bankName: string; accountName: string; currency: Currency }> {
  const bank = deps.banks.find((b) => b.code === bankCode);
  if (!bank) throw notFound(bankNotFound(bankCode));
  let answer: { accountName: string } | null;
  try {
    answer = await withTimeout(deps.enquiryTimeoutMs, deps.rail.nameEnquiry(bankCode, accountNumber));
  } catch (err) {
    if (err instanceof RailTimeoutError)
      throw new AppError("UNAVAILABLE", "Bank rail did not answer in time");
    throw err;
  }
  if (!answer) throw badRequest(ACCOUNT_NOT_RESOLVED);
  return {
    bankName: bank.name,
    accountName: answer.accountName,
    currency: COUNTRY_CURRENCY[bank.country as Country] ?? "USD",
  };
}

/**
 * Registration is idempotent per {bankCode, accountNumber} across businesses. A known account is linked to
 * the caller and returned unchanged, without asking the bank again.
 */
export async function registerAccount(
  deps: AccountsDeps,
  req: { businessId: string; bankCode: string; accountNumber: string },
): Promise<BankAccountDto> {
  const existing = await deps.store.findByBankAndNumber(req.bankCode, req.accountNumber);
  if (existing) return toDto(await deps.store.link(existing.id, req.businessId));
  let resolved: Awaited<ReturnType<typeof resolveAccount>>;
  try {
    resolved = await resolveAccount(deps, req.bankCode, req.accountNumber);
  } catch (err) {
    // Registration reports an unknown bank as 400, unlike offramp's 404.
    if (err instanceof AppError && err.code === "NOT_FOUND") throw badRequest(err.detail);
    throw err;
  }
  const address = await deps.allocateAddress(`${req.bankCode}:${req.accountNumber}`);
  const record = await deps.store.insertOrLink(
    {
      bankCode: req.bankCode,
      bankName: resolved.bankName,
      currency: resolved.currency,
      accountNumber: req.accountNumber,
      accountName: resolved.accountName,
      address,
    },
    req.businessId,
  );
  return toDto(record);
}

export async function lookupAccount(
  deps: Pick<AccountsDeps, "store">,
  req: { businessId: string; address?: string | undefined; accountNumber?: string | undefined },
): Promise<BankAccountDto> {
  if (req.address === undefined && req.accountNumber === undefined) {
    throw badRequest("one of address or accountNumber must be given");
  }
  const found = await deps.store.lookup(req.businessId, req);
  if (!found) throw notFound("Bank account not found");
  return toDto(found);
}
