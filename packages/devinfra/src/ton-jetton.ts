import { type Address, beginCell, Cell, contractAddress, type StateInit, toNano } from "@ton/core";
import type { SandboxContract, TreasuryContract } from "@ton/sandbox";
import { jettonMinterCode } from "@ton-community/assets-sdk/dist/jetton/contracts/build/jetton-minter.js";
import { jettonWalletCode } from "@ton-community/assets-sdk/dist/jetton/contracts/build/jetton-wallet.js";
import type { SandboxTonRpc } from "./ton-sandbox-rpc.ts";

/**
 * The standard TEP-74 jetton (token-contract's jetton-minter-discoverable and jetton-wallet), compiled
 * code as shipped by the @ton-community/assets-sdk npm package.
 */
const MINTER_CODE = Cell.fromBase64(jettonMinterCode.codeBoc);
const WALLET_CODE = Cell.fromBase64(jettonWalletCode.codeBoc);
const OP_MINT = 21;
const OP_INTERNAL_TRANSFER = 0x178d4519;

export interface TestJetton {
  minter: Address;
  init: StateInit;
}

const OFFCHAIN = beginCell().storeUint(1, 8).storeStringTail("https://example.invalid/jetton.json").endCell();

export function testJetton(admin: Address, content: Cell = OFFCHAIN): TestJetton {
  const data = beginCell()
    .storeCoins(0)
    .storeAddress(admin)
    .storeRef(content)
    .storeRef(WALLET_CODE)
    .endCell();
  const init = { code: MINTER_CODE, data };
  return { minter: contractAddress(0, init), init };
}

/** Mints `raw` base units to `to` (deploying the minter on first use), recording the transactions. */
export async function mintJetton(
  rpc: SandboxTonRpc,
  admin: SandboxContract<TreasuryContract>,
  jetton: TestJetton,
  to: Address,
  raw: bigint,
): Promise<void> {
  const internalTransfer = beginCell()
    .storeUint(OP_INTERNAL_TRANSFER, 32)
    .storeUint(0, 64)
    .storeCoins(raw)
    .storeAddress(null)
    .storeAddress(admin.address)
    .storeCoins(0)
    .storeMaybeRef(null)
    .endCell();
  const body = beginCell()
    .storeUint(OP_MINT, 32)
    .storeUint(0, 64)
    .storeAddress(to)
    .storeCoins(toNano("0.05"))
    .storeRef(internalTransfer)
    .endCell();
  const result = await admin.send({ to: jetton.minter, value: toNano("0.2"), init: jetton.init, body });
  rpc.record(result);
  const failed = result.transactions.find(
    (tx) =>
      tx.description.type === "generic" &&
      tx.description.computePhase.type === "vm" &&
      !tx.description.computePhase.success,
  );
  if (failed) throw new Error("jetton mint failed in the sandbox");
}
