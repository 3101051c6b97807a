import { createHash } from "node:crypto";
import type { BankRail } from "./bank-rail.ts";

const FIRST = [
  "ADA",
  "CHIDI",
  "EMEKA",
  "FUNMI",
  "IFEOMA",
  "KOFI",
  "AMARA",
  "TUNDE",
  "ZAINAB",
  "NALEDI",
  "WANJIRU",
  "BARAKA",
];
const LAST = [
  "OKAFOR",
  "ADEYEMI",
  "MENSAH",
  "OTIENO",
  "DLAMINI",
  "BELLO",
  "NWOSU",
  "MWANGI",
  "KIMARO",
  "OSEI",
];

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Stable name per account number, so every enquiry and every test sees the same holder. */
export function sandboxAccountName(accountNumber: string): string {
  const d = digest(accountNumber);
  return `${FIRST[d[0]! % FIRST.length]} ${LAST[d[1]! % LAST.length]}`;
}

/**
 * Deterministic sandbox rail: 10-digit numbers resolve; `999…` never resolves;
 * `888…` resolves but every payout to it is rejected. Virtual account numbers derive from the order ref.
 */
export function createSandboxRail(): BankRail {
  return {
    async nameEnquiry(_bankCode, accountNumber) {
      if (!/^\d{10}$/.test(accountNumber) || accountNumber.startsWith("999")) return null;
      return { accountName: sandboxAccountName(accountNumber) };
    },
    async openVirtualAccount({ ref }) {
      const n = digest(`va:${ref}`).readBigUInt64BE(0) % 10_000_000_000n;
      return { accountNumber: n.toString().padStart(10, "0"), bankName: "Sandbox Bank" };
    },
    async closeVirtualAccount() {},
    async payout({ orderId, accountNumber }) {
      const reference = `SBX-PAY-${digest(`payout:${orderId}`).toString("hex").slice(0, 16).toUpperCase()}`;
      if (accountNumber.startsWith("888")) {
        return { status: "FAILED", reference, reason: "Beneficiary bank rejected the transfer" };
      }
      return { status: "COMPLETED", reference, reason: null };
    },
  };
}
