import type { JetStreamClient } from "@nats-io/jetstream";
import { AppError, type Currency, Events, notFound, type VirtualAccount } from "@ramp/contracts";
import {
  type Claims,
  createStateStore,
  insertGrouped,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  sha256Hex,
  type TraceContext,
} from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { Db } from "mongodb";
import type { BankRail } from "../rails/bank-rail.ts";

interface VirtualAccountDoc {
  _id: string; // the order/payment ref it was opened for
  accountNumber: string;
  accountName: string;
  bank: string;
  currency: Currency;
  fiatAmount: string;
  status: "open" | "closed";
  createdAt: Date;
}

interface FiatDepositDoc {
  _id: string; // rail reference: one deposit, one record
  ref: string | null;
  accountNumber: string;
  currency: Currency | null;
  fiatAmount: string;
  payerName: string;
  /**
   * `matched`: the account is one of ours (open, or closed since), and orders is told, which records a
   * deposit to a closed account as a refundable fund; `unmatched`: no account of ours has that number
   * (nothing says its currency or order), kept for operators, never dropped.
   */
  status: "matched" | "unmatched";
  receivedAt: Date;
  outbox: OutboxEntry[];
}

/** The virtual account name: `<NAME>(Pay <CURRENCY> <AMOUNT>)`, the amount in major units with 2 decimals. */
export function virtualAccountName(holder: string, currency: Currency, fiatAmount: string): string {
  return `${holder}(Pay ${currency} ${new Decimal(fiatAmount).toFixed(2)})`;
}

export function createVirtualAccounts(deps: {
  db: Db;
  rail: BankRail;
  js: JetStreamClient;
  claims: Claims;
  log: Logger;
}) {
  const accounts = deps.db.collection<VirtualAccountDoc>("virtual_accounts");
  const deposits = deps.db.collection<FiatDepositDoc>("fiat_deposits");
  const depositStore = createStateStore<FiatDepositDoc, FiatDepositDoc["status"]>({
    collection: deposits,
    stateField: "status",
    ...deps,
  });
  return {
    startSweeper: () => depositStore.startSweeper(),
    async init() {
      await accounts.createIndex({ accountNumber: 1 }, { unique: true });
      await deposits.createIndex({ ref: 1 });
    },

    /**
     * One account per ref; opening twice returns the first while it is open. A closed one is never
     * handed out again (a transfer to it is kept as unmatched): opening its ref again is a CONFLICT.
     */
    async open(req: {
      ref: string;
      currency: Currency;
      fiatAmount: string;
      holder: string;
    }): Promise<VirtualAccount> {
      const existing = await accounts.findOne({ _id: req.ref });
      if (existing?.status === "closed")
        throw new AppError("CONFLICT", `The virtual account for ${req.ref} is closed`);
      if (existing)
        return {
          accountNumber: existing.accountNumber,
          accountName: existing.accountName,
          bank: existing.bank,
        };
      const opened = await deps.rail.openVirtualAccount(req);
      const doc: VirtualAccountDoc = {
        _id: req.ref,
        accountNumber: opened.accountNumber,
        accountName: virtualAccountName(req.holder, req.currency, req.fiatAmount),
        bank: opened.bankName,
        currency: req.currency,
        fiatAmount: req.fiatAmount,
        status: "open",
        createdAt: new Date(),
      };
      // With the other onramps' accounts ready at the same moment, in one command.
      if (!(await insertGrouped(accounts, doc))) return this.open(req);
      return { accountNumber: doc.accountNumber, accountName: doc.accountName, bank: doc.bank };
    },

    async close(ref: string): Promise<void> {
      // Filtered on `_id` alone (FerretDB reads the whole collection for any other condition); the
      // document as it was says whether this call is the one that closed it.
      const before = await accounts.findOneAndUpdate(
        { _id: ref },
        { $set: { status: "closed" } },
        { returnDocument: "before" },
      );
      if (before?.status === "open") await deps.rail.closeVirtualAccount(before.accountNumber);
    },

    /**
     * The rail's inbound path: every notified deposit is stored once (by rail reference). A deposit to
     * one of our accounts is announced to orders, closed or not: to a closed one it arrived after its
     * order moved on, and orders keeps it as a refundable fund with an exception (never lost in here).
     * One to an unknown account is kept for operators.
     */
    async receive(
      req: { accountNumber: string; fiatAmount: string; reference: string; payerName: string },
      trace: TraceContext,
    ): Promise<void> {
      const account = await accounts.findOne({ accountNumber: req.accountNumber });
      const matched = account !== null;
      const doc: FiatDepositDoc = {
        _id: req.reference,
        ref: account?._id ?? null,
        accountNumber: req.accountNumber,
        currency: account?.currency ?? null,
        fiatAmount: req.fiatAmount,
        payerName: req.payerName,
        status: matched ? "matched" : "unmatched",
        receivedAt: new Date(),
        outbox:
          matched && account
            ? [
                outboxEntry(
                  Events.fiatDepositReceived,
                  {
                    ref: account._id,
                    reference: req.reference,
                    accountNumber: req.accountNumber,
                    currency: account.currency,
                    fiatAmount: req.fiatAmount,
                    payerName: req.payerName,
                  },
                  `fiat:${req.reference}`,
                  trace,
                ),
              ]
            : [],
      };
      await depositStore.insert(doc);
      if (!matched)
        deps.log.warn(
          { reference: req.reference, accountNumber: req.accountNumber },
          "fiat deposit to an unknown account kept for operators",
        );
      else if (account.status === "closed")
        deps.log.warn(
          { reference: req.reference, ref: account._id },
          "fiat deposit to a closed account; orders keeps it as a refundable fund",
        );
    },

    /**
     * Sandbox: the payer's transfer for `ref`, entering through the same inbound path as the rail's
     * notification. With an idempotency key the reference is derived from it, so a retried request is
     * the same transfer and `receive` stores it once.
     */
    async sandboxDeposit(
      { ref, fiatAmount, idempotencyKey }: { ref: string; fiatAmount?: string; idempotencyKey?: string },
      trace: TraceContext,
    ): Promise<string> {
      const account = await accounts.findOne({ _id: ref });
      if (!account) throw notFound("Virtual account not found");
      const reference = idempotencyKey
        ? `SBX-IN-${sha256Hex(idempotencyKey).slice(0, 24).toUpperCase()}`
        : `SBX-IN-${Date.now().toString(36).toUpperCase()}-${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
      await this.receive(
        {
          accountNumber: account.accountNumber,
          fiatAmount: fiatAmount ?? account.fiatAmount,
          reference,
          payerName: "SANDBOX PAYER",
        },
        trace,
      );
      return reference;
    },
  };
}
export type VirtualAccounts = ReturnType<typeof createVirtualAccounts>;
