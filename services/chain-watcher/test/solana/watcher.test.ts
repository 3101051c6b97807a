import type { ParsedTransactionWithMeta } from "@solana/web3.js";
import { beforeEach, describe, expect, it } from "vitest";
import type { ChainAdapter, WatchedAddress } from "../../src/chains/adapter.ts";
import { createSolanaAdapter } from "../../src/chains/solana/adapter.ts";
import { deriveSolanaAddress } from "../../src/chains/solana/derive.ts";
import { parseSolanaTransfers } from "../../src/chains/solana/parse-transfers.ts";
import { fixture, RecordedLedger } from "./recorded-rpc.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
// Facts of the recorded transactions (see fixtures/): the watched owner is deposit index 0.
const OWNER = deriveSolanaAddress(MNEMONIC, 0);
const OWNER_USDC_ATA = "8XXncUd6hJ6JUbVm124sDVwRwNKKZK1A4Yb4Wp7uCTyC";
const PAYER = "9HKx7xUsVHtgS43LBp4t3uotyoX66tDtKar8N82weunf";
const VAULT_OWNER = "6JiStsjzLMKjrTqdvgnHtP6Jkv7dqx63byEuEpkZg65M";
const SIG = {
  createAtaDeposit: "mCUjLm1xEGxord2rbcc3GarmfPLhBe7XHUtUPFTiMJHT7boYJAzRMezsvQYoNCTnLBD7ci78rpRChF2CE2j1kVh",
  innerDeposit: "3Ape12iagFWAMEEcWHSCXzvDSG6mqud23yeby2KiSySDTcsMnhJDpiU5uchQCtHByrkxuEYZzcVp5FsJjvMGhfr9",
  failed: "3AiqVsRNE64r9k7Negjcvqoe1nGV9nNGfzYm6m5ArqxtMyim5DBUWNxf6A9rHNRJsj4WbtmESRGKdmzKSw1X71YM",
  sweep: "jeAcUZGXsBT6oyKr667J6qfZv5YiLa1tJh5MnmAQr2AXHbznG73XWF1b2stBn8Nx2VVEPJNPDSGfDoVn2QQ17ps",
  later: "4gbT8rL3e7DfcDPV26EvYWoJ7p7c4879Jj2uMRZEZYuVmi6Z6npcQamgvBGCppmn7kPaQByjYPRSpuiuKamg4LPt",
};
const TX_FILES = [
  "tx-deposit-create-ata-transfer-checked.json",
  "tx-deposit-inner-transfer.json",
  "tx-failed-transfer-checked.json",
  "tx-outgoing-sweep.json",
];

describe("Solana watcher on recorded mainnet-format responses", () => {
  let ledger: RecordedLedger;
  let adapter: ChainAdapter;
  const watched: WatchedAddress[] = [{ address: OWNER, mints: [USDC] }];

  beforeEach(() => {
    ledger = new RecordedLedger();
    ledger.accounts.set(USDC, fixture("account-usdc-mint.json").result);
    ledger.addSignatures(OWNER_USDC_ATA, "signatures-watched-ata.json");
    for (const file of TX_FILES) ledger.addTransaction(file);
    adapter = createSolanaAdapter({ mnemonic: MNEMONIC, rpc: ledger.connection() });
  });

  it("reports each deposit once, oldest first, and the cursor moves past everything handled", async () => {
    const first = await adapter.poll(null, watched);
    expect(first.transfers).toEqual([
      // transferChecked after createIdempotent (+4 inner instructions) and two compute-budget ones.
      { txId: SIG.createAtaDeposit, index: 7, to: OWNER, mint: USDC, amount: "25.5", sender: PAYER },
      // Plain `transfer` inside a program call: decimals from token balances, sender = vault's owner.
      { txId: SIG.innerDeposit, index: 3, to: OWNER, mint: USDC, amount: "100", sender: VAULT_OWNER },
    ]);
    expect(JSON.parse(first.cursor)).toEqual({ [OWNER_USDC_ATA]: SIG.sweep });
    // A transaction listed as failed is not even fetched.
    const fetched = ledger.calls.filter((c) => c.method === "getTransaction").map((c) => c.params[0]);
    expect(fetched).not.toContain(SIG.failed);
    expect(ledger.calls.find((c) => c.method === "getSignaturesForAddress")?.params[1]).toMatchObject({
      commitment: "finalized",
    });

    const second = await adapter.poll(first.cursor, watched);
    expect(second.transfers).toEqual([]);
    expect(second.cursor).toBe(first.cursor);

    ledger.addSignatures(OWNER_USDC_ATA, "signatures-watched-ata-later.json");
    ledger.addTransaction("tx-deposit-later.json");
    const third = await adapter.poll(second.cursor, watched);
    expect(third.transfers).toEqual([
      { txId: SIG.later, index: 2, to: OWNER, mint: USDC, amount: "7.000001", sender: PAYER },
    ]);
    expect(JSON.parse(third.cursor)).toEqual({ [OWNER_USDC_ATA]: SIG.later });
  });

  it("stops before a transaction the node cannot return yet and picks it up next poll", async () => {
    const held = ledger.transactions.get(SIG.innerDeposit);
    ledger.transactions.delete(SIG.innerDeposit);
    const first = await adapter.poll(null, watched);
    expect(first.transfers.map((t) => t.txId)).toEqual([SIG.createAtaDeposit]);
    expect(JSON.parse(first.cursor)).toEqual({ [OWNER_USDC_ATA]: SIG.createAtaDeposit });

    ledger.transactions.set(SIG.innerDeposit, held);
    const second = await adapter.poll(first.cursor, watched);
    expect(second.transfers.map((t) => t.txId)).toEqual([SIG.innerDeposit]);
    expect(JSON.parse(second.cursor)).toEqual({ [OWNER_USDC_ATA]: SIG.sweep });
  });

  it("watches the settlement stablecoin even when the allocation lists no mint", async () => {
    const withStable = createSolanaAdapter({
      mnemonic: MNEMONIC,
      rpc: ledger.connection(),
      stablecoin: USDC,
    });
    const { transfers } = await withStable.poll(null, [{ address: OWNER, mints: [] }]);
    expect(transfers).toHaveLength(2);
  });

  it("reads at the commitment CONFIRMATIONS_SOLANA asks for: confirmed below 32, finalized from 32", async () => {
    const commitments = async (confirmations: number) => {
      ledger.calls.length = 0;
      await createSolanaAdapter({ mnemonic: MNEMONIC, rpc: ledger.connection(), confirmations }).poll(
        null,
        watched,
      );
      return new Set(ledger.calls.map((c) => (c.params.at(-1) as { commitment?: string }).commitment));
    };
    expect(await commitments(1)).toEqual(new Set(["confirmed"]));
    expect(await commitments(32)).toEqual(new Set(["finalized"]));
  });

  it("ignores failed transactions, outgoing transfers and unwatched destinations", async () => {
    const rpc = ledger.connection();
    const [failed, sweep, deposit] = await rpc.getParsedTransactions(
      [SIG.failed, SIG.sweep, SIG.createAtaDeposit],
      {
        maxSupportedTransactionVersion: 0,
      },
    );
    const watchedAtas = new Map([[OWNER_USDC_ATA, { owner: OWNER, mint: USDC, ata: OWNER_USDC_ATA }]]);
    const parse = (sig: string, tx: ParsedTransactionWithMeta | null | undefined, map = watchedAtas) =>
      tx ? parseSolanaTransfers(sig, tx, map, () => 6) : undefined;
    expect(parse(SIG.failed, failed)).toEqual([]);
    expect(parse(SIG.sweep, sweep)).toEqual([]);
    expect(parse(SIG.createAtaDeposit, deposit, new Map())).toEqual([]);
    expect(parse(SIG.createAtaDeposit, deposit)).toHaveLength(1);
  });
});
