/**
 * Lease buckets: NATS KV buckets in which a service's replicas take turns at a loop that must run in one
 * place at a time (a chain's poll from a shared cursor, say). Entries expire after the bucket's TTL
 * unless their holder renews them, so a holder that dies or pauses loses its turn.
 */
export interface LeaseBucketContract {
  /** The KV bucket; its stream is `KV_<bucket>`, its subjects `$KV.<bucket>.>`. */
  readonly bucket: string;
  /** The only service that reads or writes it. */
  readonly owner: string;
}

export const LeaseBuckets = {
  chainWatcher: { bucket: "ramp_leases_chain_watcher", owner: "chain-watcher" },
} as const satisfies Record<string, LeaseBucketContract>;
