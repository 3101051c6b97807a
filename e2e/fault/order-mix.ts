import { BASE_USDC, ETH_USDC, EVM_RECIPIENT, SOL_RECIPIENT, SOL_USDC } from "../support/tokens.ts";

export type OrderKind = "onramp" | "offramp" | "payment-token" | "payment-fiat";
export const ORDER_KINDS: OrderKind[] = ["onramp", "offramp", "payment-token", "payment-fiat"];

export interface PlannedOrder {
  index: number;
  kind: OrderKind;
  createPath: string;
  body: Record<string, unknown>;
  /** The terminal status this order must reach. */
  expected: "COMPLETED" | "ERROR" | "SUCCESSFUL";
  depositPath: (id: string) => string;
  /** The payer takes a moment (0-3 s) after the order exists, so deposits meet the chaos at random. */
  payAfterMs: number;
  statusPath: (id: string) => string;
  /**
   * On the real EVM chain (see `EvmMix`): an offramp paid by a real token transfer to its deposit
   * address instead of the sandbox route, or an onramp whose treasury send is a real transaction.
   */
  onChain: boolean;
}

/** A real EVM chain in the mix: every third onramp and every third offramp, the first of each included. */
export interface EvmMix {
  chain: "ETHEREUM" | "BASE";
  /** The chain's settlement stablecoin, deployed on it. */
  mint: string;
}
const EVM_EVERY = 3;

/** One recipient per on-chain onramp, so its balance shows how often it was paid. Not a dev-mnemonic address. */
export const evmRecipientOf = (index: number) => `0x${(0xe2e000 + index).toString(16).padStart(40, "0")}`;

/** A small seeded generator (mulberry32), so a failing mix can be replayed from its printed seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One third onramps, one third offramps, one sixth each payment method, interleaved. */
const PATTERN: OrderKind[] = ["onramp", "offramp", "payment-token", "onramp", "offramp", "payment-fiat"];
/** Every 12th offramp pays out to an `888…` account, which the sandbox rail rejects (about 8%). */
const REJECTED_PAYOUT_EVERY = 12;

const ONRAMP_TARGETS = [
  { chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT },
  { chain: "BASE", mint: BASE_USDC, recipient: EVM_RECIPIENT },
  { chain: "SOLANA", mint: SOL_USDC, recipient: SOL_RECIPIENT },
];
const OFFRAMP_TARGETS = [
  { chain: "BASE", mint: BASE_USDC },
  { chain: "SOLANA", mint: SOL_USDC },
];

const transaction = (id: string) => `/pub/v2/transaction/${id}`;
const payment = (id: string) => `/pub/v2/payment/${id}`;

export function planOrders(count: number, seed: number, evm?: EvmMix): PlannedOrder[] {
  const rand = seeded(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  /** A price with 2 decimals between lo and hi. */
  const amount = (lo: number, hi: number) => Math.round((lo + rand() * (hi - lo)) * 100) / 100;
  // The real chain is no longer a sandbox target: its stablecoin is the one deployed there.
  const sandboxOnramp = ONRAMP_TARGETS.filter((t) => t.chain !== evm?.chain);
  const sandboxOfframp = OFFRAMP_TARGETS.filter((t) => t.chain !== evm?.chain);
  let onramps = 0;
  let offramps = 0;
  const planOne = (index: number): PlannedOrder => {
    const kind = PATTERN[index % PATTERN.length] as OrderKind;
    const payAfterMs = Math.floor(rand() * 3_000);
    switch (kind) {
      case "onramp": {
        const onChain = evm !== undefined && onramps++ % EVM_EVERY === 0;
        const target =
          onChain && evm
            ? { chain: evm.chain, mint: evm.mint, recipient: evmRecipientOf(index) }
            : pick(sandboxOnramp);
        return {
          index,
          kind,
          payAfterMs,
          onChain,
          createPath: "/pub/v2/onramp",
          body: { currency: "NGN", ...target, amount: amount(2, 40) },
          expected: "COMPLETED",
          depositPath: (id) => `/sandbox/v2/onramp/${id}/fiat-deposit`,
          statusPath: transaction,
        };
      }
      case "offramp": {
        const rejected = offramps % REJECTED_PAYOUT_EVERY === 3;
        const onChain = evm !== undefined && offramps % EVM_EVERY === 0;
        offramps++;
        const digits = String(Math.floor(rand() * 10_000_000)).padStart(7, "0");
        return {
          index,
          kind,
          payAfterMs,
          onChain,
          createPath: "/pub/v2/offramp",
          body: {
            accountNumber: `${rejected ? "888" : "012"}${digits}`,
            bankCode: "000013",
            currency: "NGN",
            ...(onChain && evm ? { chain: evm.chain, mint: evm.mint } : pick(sandboxOfframp)),
            amount: amount(2, 40),
          },
          expected: rejected ? "ERROR" : "COMPLETED",
          depositPath: (id) => `/sandbox/v2/offramp/${id}/token-deposit`,
          statusPath: transaction,
        };
      }
      case "payment-token":
        return {
          index,
          kind,
          payAfterMs,
          onChain: false,
          createPath: "/pub/v2/payment",
          body: { chain: "BASE", mint: BASE_USDC, amount: amount(5, 100) },
          expected: "SUCCESSFUL",
          depositPath: (id) => `/sandbox/v2/payment/${id}/deposit`,
          statusPath: payment,
        };
      case "payment-fiat":
        return {
          index,
          kind,
          payAfterMs,
          onChain: false,
          createPath: "/pub/v2/payment",
          body: { method: "FIAT", currency: "NGN", amount: amount(1_000, 50_000) },
          expected: "SUCCESSFUL",
          depositPath: (id) => `/sandbox/v2/payment/${id}/deposit`,
          statusPath: payment,
        };
    }
  };
  return Array.from({ length: count }, (_, index) => planOne(index));
}
