import { LiteSvmNode, liteSvmConnection } from "@ramp/devinfra/litesvm";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
  unpackAccount,
} from "@solana/spl-token";
import { Keypair, type PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { beforeEach, describe, expect, it } from "vitest";
import type { ChainAdapter } from "../../src/chains/adapter.ts";
import { TransferRejected } from "../../src/chains/errors.ts";
import { createSolanaAdapter } from "../../src/chains/solana/adapter.ts";
import { deriveSolanaAddress, deriveSolanaTreasuryKeypair } from "../../src/chains/solana/derive.ts";
import type { SolanaRpc } from "../../src/chains/solana/rpc.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
const DECIMALS = 6;

describe("Solana delivery on LiteSVM", () => {
  let node: LiteSvmNode;
  let rpc: SolanaRpc;
  let adapter: ChainAdapter;
  let mint: PublicKey;
  const treasury = deriveSolanaTreasuryKeypair(MNEMONIC);

  const tokenBalance = async (owner: PublicKey): Promise<bigint> => {
    const ata = getAssociatedTokenAddressSync(mint, owner, true);
    const info = await rpc.getAccountInfo(ata);
    return info ? unpackAccount(ata, info, TOKEN_PROGRAM_ID).amount : 0n;
  };

  beforeEach(() => {
    node = new LiteSvmNode();
    rpc = liteSvmConnection(node);
    node.airdrop(treasury.publicKey, 10_000_000_000n);
    const mintKey = Keypair.generate();
    mint = mintKey.publicKey;
    const authority = Keypair.generate();
    const rent = Number(node.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)));
    const treasuryAta = getAssociatedTokenAddressSync(mint, treasury.publicKey);
    node.run(
      treasury,
      [mintKey, authority],
      SystemProgram.createAccount({
        fromPubkey: treasury.publicKey,
        newAccountPubkey: mint,
        lamports: rent,
        space: MINT_SIZE,
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(mint, DECIMALS, authority.publicKey, null),
      createAssociatedTokenAccountIdempotentInstruction(
        treasury.publicKey,
        treasuryAta,
        treasury.publicKey,
        mint,
      ),
      createMintToInstruction(mint, treasuryAta, authority.publicKey, 1_000_000_000n), // 1000 tokens
    );
    adapter = createSolanaAdapter({ mnemonic: MNEMONIC, rpc });
  });

  it("delivers to a fresh recipient, creating its token account, and moves exactly the amount", async () => {
    const recipient = Keypair.generate().publicKey;
    const mintAddress = mint.toBase58();
    const setup = await adapter.recipientSetupCost(recipient.toBase58(), mintAddress);
    expect(Number(setup)).toBeGreaterThan(0);
    expect(setup).toBe("0.00203928"); // rent-exempt minimum of 165 bytes
    expect(await adapter.tokenDecimals(mintAddress)).toBe(DECIMALS);

    const prepared = await adapter.prepareTransfer({
      requestId: "req-1",
      mint: mintAddress,
      recipient: recipient.toBase58(),
      amount: "12.345678",
    });
    // The signature is known before anything is sent, and is the transaction's first signature.
    expect(await adapter.transferStatus(prepared.signature)).toBe("pending");
    const decoded = Transaction.from(Buffer.from(prepared.raw, "base64"));
    expect(decoded.verifySignatures()).toBe(true);
    expect(await tokenBalance(recipient)).toBe(0n);

    await adapter.broadcast(prepared);
    expect(await adapter.transferStatus(prepared.signature)).toBe("confirmed");
    expect(await tokenBalance(recipient)).toBe(12_345_678n);
    expect(await tokenBalance(treasury.publicKey)).toBe(1_000_000_000n - 12_345_678n);
    expect(await adapter.recipientSetupCost(recipient.toBase58(), mintAddress)).toBe("0");
    // A quote has no recipient yet: it is priced for one that never held the token.
    expect(await adapter.recipientSetupCost(null, mintAddress)).toBe("0.00203928");

    // Re-broadcasting the same bytes after a "crash" moves nothing more.
    await adapter.broadcast(prepared);
    expect(await tokenBalance(recipient)).toBe(12_345_678n);

    // A second delivery to the now-existing account works through the idempotent create.
    node.svm.expireBlockhash();
    const again = await adapter.prepareTransfer({
      requestId: "req-2",
      mint: mintAddress,
      recipient: recipient.toBase58(),
      amount: "0.000001",
    });
    await adapter.broadcast(again);
    expect(await adapter.transferStatus(again.signature)).toBe("confirmed");
    expect(await tokenBalance(recipient)).toBe(12_345_679n);
  });

  it("sees a delivery to a watched address through the node's signature index, exactly once", async () => {
    const owner = deriveSolanaAddress(MNEMONIC, 3);
    const watched = [{ address: owner, mints: [mint.toBase58()] }];
    const start = await adapter.poll(null, watched);
    expect(start.transfers).toEqual([]);
    const prepared = await adapter.prepareTransfer({
      requestId: "req-watched",
      mint: mint.toBase58(),
      recipient: owner,
      amount: "2.5",
    });
    await adapter.broadcast(prepared);
    const seen = await adapter.poll(start.cursor, watched);
    expect(seen.transfers).toEqual([
      // createIdempotent (index 0) and its 4 inner instructions come first: transferChecked is 5th.
      {
        txId: prepared.signature,
        index: 5,
        to: owner,
        mint: mint.toBase58(),
        amount: "2.5",
        sender: treasury.publicKey.toBase58(),
      },
    ]);
    expect((await adapter.poll(seen.cursor, watched)).transfers).toEqual([]);
  });

  it("rejects transfers that can never succeed", async () => {
    const mintAddress = mint.toBase58();
    const recipient = Keypair.generate().publicKey.toBase58();
    const ask = (amount: string, to = recipient) =>
      adapter.prepareTransfer({ requestId: "r", mint: mintAddress, recipient: to, amount });
    await expect(ask("1.0000001")).rejects.toBeInstanceOf(TransferRejected);
    await expect(ask("1000.000001")).rejects.toThrow(/treasury holds 1000 of/);
    await expect(ask("0")).rejects.toBeInstanceOf(TransferRejected);
    await expect(ask("1", "not-an-address")).rejects.toBeInstanceOf(TransferRejected);
    const treasuryAta = getAssociatedTokenAddressSync(mint, treasury.publicKey).toBase58();
    await expect(ask("1", treasuryAta)).rejects.toThrow(/token account/);
  });

  it("declares a never-sent transfer failed once its blockhash expired", async () => {
    const prepared = await adapter.prepareTransfer({
      requestId: "req-lost",
      mint: mint.toBase58(),
      recipient: Keypair.generate().publicKey.toBase58(),
      amount: "1",
    });
    expect(await adapter.transferStatus(prepared.signature)).toBe("pending");
    node.svm.expireBlockhash();
    expect(await adapter.transferStatus(prepared.signature)).toBe("failed");
  });
});
