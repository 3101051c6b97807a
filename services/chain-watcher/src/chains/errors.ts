/**
 * Thrown by an adapter when a transfer can never succeed as asked (insufficient treasury balance, a
 * call that reverts, a malformed recipient). The transfer is failed for good with `message` as the
 * reason; any other error is treated as transient and retried.
 */
export class TransferRejected extends Error {
  override name = "TransferRejected";
}
