import { createHash } from "node:crypto";
import { type BankRail, RailUnavailableError } from "./bank-rail.ts";

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

/** How often the `777…` accounts' payouts fail with a 5xx before the rail pays them. */
export const SANDBOX_FLAKY_FAILURES = 2;

/**
 * Deterministic sandbox rail: 10-digit numbers resolve; `999…` never resolves;
 * `888…` resolves but every payout to it is rejected (a refusal); `777…` payouts answer 503 the first
 * SANDBOX_FLAKY_FAILURES times each order asks, then pay (a failure that passes); `776…` payouts always
 * answer 503 (a rail that stays down). Virtual account numbers derive from the order ref.
 */
export function createSandboxRail(): BankRail {
  const asked = new Map<string, number>();
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
      if (accountNumber.startsWith("776"))
        throw new RailUnavailableError("sandbox rail: 503 Service Unavailable");
      if (accountNumber.startsWith("777")) {
        const n = (asked.get(orderId) ?? 0) + 1;
        asked.set(orderId, n);
        if (n <= SANDBOX_FLAKY_FAILURES)
          throw new RailUnavailableError("sandbox rail: 503 Service Unavailable");
      }
      const reference = `SBX-PAY-${digest(`payout:${orderId}`).toString("hex").slice(0, 16).toUpperCase()}`;
      if (accountNumber.startsWith("888")) {
        return { status: "FAILED", reference, reason: "Beneficiary bank rejected the transfer" };
      }
      return { status: "COMPLETED", reference, reason: null };
    },
  };
}
