import type { BankAccountRecord, ConsoleListQuery, Currency } from "@ramp/contracts";
import { isDuplicateKey, pageById } from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";

interface BankAccountDoc {
  _id: ObjectId;
  bankCode: string;
  currency: Currency;
  bankName: string;
  accountNumber: string;
  accountName: string;
  address: string;
  businessIds: string[];
  createdAt: Date;
}

const toRecord = (d: BankAccountDoc): BankAccountRecord => ({
  id: d._id.toHexString(),
  accountName: d.accountName,
  accountNumber: d.accountNumber,
  bank: d.bankName,
  address: d.address,
  bankCode: d.bankCode,
  currency: d.currency,
  businessIds: d.businessIds,
});

export type NewBankAccount = Omit<BankAccountDoc, "_id" | "businessIds" | "createdAt">;

/** One record per {bankCode, accountNumber} across the service, linked to every business that registers it. */
export interface AccountsStore {
  init(): Promise<void>;
  findByBankAndNumber(bankCode: string, accountNumber: string): Promise<BankAccountRecord | null>;
  link(id: string, businessId: string): Promise<BankAccountRecord>;
  /** Inserts, or when another registration won the race, links the business to the winner's record. */
  insertOrLink(doc: NewBankAccount, businessId: string): Promise<BankAccountRecord>;
  lookup(
    businessId: string,
    q: { address?: string | undefined; accountNumber?: string | undefined },
  ): Promise<BankAccountRecord | null>;
  byAddress(address: string): Promise<BankAccountRecord | null>;
  /** The accounts a business registered, newest first. */
  page(
    businessId: string,
    page: ConsoleListQuery,
  ): Promise<{ data: BankAccountRecord[]; nextCursor: string }>;
}

export function createAccountsStore(db: Db): AccountsStore {
  const col = db.collection<BankAccountDoc>("bank_accounts");
  const store: AccountsStore = {
    async init() {
      await col.createIndex({ bankCode: 1, accountNumber: 1 }, { unique: true });
      await col.createIndex({ address: 1 }, { unique: true });
      await col.createIndex({ accountNumber: 1 });
      await col.createIndex({ businessIds: 1, _id: -1 }, { name: "business_list" });
    },
    async findByBankAndNumber(bankCode, accountNumber) {
      const d = await col.findOne({ bankCode, accountNumber });
      return d ? toRecord(d) : null;
    },
    async link(id, businessId) {
      const d = await col.findOneAndUpdate(
        { _id: new ObjectId(id) },
        { $addToSet: { businessIds: businessId } },
        { returnDocument: "after" },
      );
      if (!d) throw new Error(`bank account ${id} vanished`);
      return toRecord(d);
    },
    async insertOrLink(doc, businessId) {
      const full: BankAccountDoc = {
        _id: new ObjectId(),
        ...doc,
        businessIds: [businessId],
        createdAt: new Date(),
      };
      try {
        await col.insertOne(full);
        return toRecord(full);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await store.findByBankAndNumber(doc.bankCode, doc.accountNumber);
        if (!existing) throw err;
        return store.link(existing.id, businessId);
      }
    },
    async lookup(businessId, q) {
      const filter: Record<string, unknown> = { businessIds: businessId };
      if (q.address !== undefined) filter.address = q.address;
      if (q.accountNumber !== undefined) filter.accountNumber = q.accountNumber;
      const d = await col.findOne(filter);
      return d ? toRecord(d) : null;
    },
    async byAddress(address) {
      const d = await col.findOne({ address });
      return d ? toRecord(d) : null;
    },
    page: (businessId, page) => pageById(col, { businessIds: businessId }, page, toRecord),
  };
  return store;
}
