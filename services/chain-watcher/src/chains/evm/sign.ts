import {
  type HDNodeWallet,
  isError,
  type JsonRpcProvider,
  Transaction,
  type TransactionRequest,
} from "ethers";
import type { PreparedTransfer } from "../adapter.ts";
import { TransferRejected } from "../errors.ts";

export interface EvmCall {
  to: string;
  data?: string;
  value?: bigint;
}

/** The fee and gas limit a call from `from` would be signed with, and what it may cost at most. */
export async function priceCall(provider: JsonRpcProvider, from: string, call: EvmCall) {
  let gas: bigint;
  try {
    gas = await provider.estimateGas({ from, ...call });
  } catch (err) {
    if (isError(err, "CALL_EXCEPTION"))
      throw new TransferRejected(`transfer would revert: ${err.shortMessage}`);
    throw err;
  }
  const fee = await provider.getFeeData();
  const gasLimit = (gas * 12n) / 10n;
  const eip1559 = fee.maxFeePerGas !== null && fee.maxPriorityFeePerGas !== null;
  const perGas = (eip1559 ? fee.maxFeePerGas : fee.gasPrice) ?? 0n;
  const fees: Partial<TransactionRequest> = eip1559
    ? { type: 2, maxFeePerGas: fee.maxFeePerGas, maxPriorityFeePerGas: fee.maxPriorityFeePerGas }
    : { type: 0, gasPrice: fee.gasPrice };
  return { gasLimit, fees, maxCost: gasLimit * perGas };
}

/**
 * Signs `call` from `wallet` with an explicit nonce (its pending count). Callers serialise prepare →
 * store → broadcast per chain, so the pending count already includes every transaction signed before.
 */
export async function signCall(
  provider: JsonRpcProvider,
  wallet: HDNodeWallet,
  call: EvmCall,
): Promise<PreparedTransfer & { maxCost: bigint }> {
  const from = wallet.address;
  const [{ gasLimit, fees, maxCost }, network, nonce] = await Promise.all([
    priceCall(provider, from, call),
    provider.getNetwork(),
    provider.getTransactionCount(from, "pending"),
  ]);
  const tx: TransactionRequest = { ...call, nonce, chainId: network.chainId, gasLimit, ...fees };
  const raw = await wallet.signTransaction(tx);
  return { signature: Transaction.from(raw).hash!, raw, maxCost };
}
