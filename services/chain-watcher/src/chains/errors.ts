/**
 * Thrown by an adapter when a transfer can never succeed as asked (insufficient treasury balance, a
 * call that reverts, a malformed recipient). The transfer is failed for good with `message` as the
 * reason; any other error is treated as transient and retried.
 */
export class TransferRejected extends Error {
  override name = "TransferRejected";
}

/**
 * Thrown by an adapter's broadcast when the transaction's nonce was used by another transaction that
 * is on chain while this one is not: this one can never be mined, so nothing was sent and the transfer
 * is signed again with a fresh nonce. Only raised once the node has said the transaction is unknown.
 */
export class NonceTaken extends Error {
  override name = "NonceTaken";
}
