import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
  unpackAccount,
} from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import { LiteSvmNode, liteSvmConnection, startLiteSvmRpcServer } from "./litesvm-rpc.ts";

export const SOLANA_DECIMALS = 6;
const LAMPORTS = 10_000_000_000n; // 10 SOL for fees and rent

/**
 * A Solana runtime for the whole system: LiteSVM behind a JSON-RPC endpoint on 127.0.0.1 (the
 * `RPC_URL_SOLANA` chain-watcher gets), a 6-decimal SPL mint standing in for USDC, and a payer that
 * holds 1000 of it. Payments run on the same node the endpoint serves, so the watcher can only learn
 * of them through RPC.
 */
export async function startSolanaLiteSvmChain() {
  const node = new LiteSvmNode();
  const payer = Keypair.generate();
  const mintKey = Keypair.generate();
  const authority = Keypair.generate();
  const mint = mintKey.publicKey;
  node.airdrop(payer.publicKey, LAMPORTS);
  const payerAta = getAssociatedTokenAddressSync(mint, payer.publicKey);
  node.run(
    payer,
    [mintKey, authority],
    SystemProgram.createAccount({
      fromPubkey: payer.publicKey,
      newAccountPubkey: mint,
      lamports: Number(node.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
      space: MINT_SIZE,
      programId: TOKEN_PROGRAM_ID,
    }),
    createInitializeMint2Instruction(mint, SOLANA_DECIMALS, authority.publicKey, null),
    createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, payerAta, payer.publicKey, mint),
    createMintToInstruction(mint, payerAta, authority.publicKey, 1_000n * 10n ** BigInt(SOLANA_DECIMALS)),
  );
  const server = await startLiteSvmRpcServer(node);
  const connection = liteSvmConnection(node);

  return {
    node,
    url: server.url,
    mint: mint.toBase58(),
    payer: payer.publicKey.toBase58(),
    /** The payer sends `raw` base units to `owner`'s token account (created if missing); the signature. */
    pay(owner: string, raw: bigint): string {
      const destination = getAssociatedTokenAddressSync(mint, new PublicKey(owner), true);
      return node.run(
        payer,
        [],
        createAssociatedTokenAccountIdempotentInstruction(
          payer.publicKey,
          destination,
          new PublicKey(owner),
          mint,
        ),
        createTransferCheckedInstruction(payerAta, mint, destination, payer.publicKey, raw, SOLANA_DECIMALS),
      );
    },
    /** Base units of the mint held by `owner`'s associated token account. */
    async balanceOf(owner: string): Promise<bigint> {
      const ata = getAssociatedTokenAddressSync(mint, new PublicKey(owner), true);
      const info = await connection.getAccountInfo(ata);
      return info ? unpackAccount(ata, info, TOKEN_PROGRAM_ID).amount : 0n;
    },
    close: () => server.close(),
  };
}
export type SolanaLiteSvmChain = Awaited<ReturnType<typeof startSolanaLiteSvmChain>>;
