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

/**
 * Hold buckets: one per service whose replicas update the same documents of a database that applies
 * updates without a lock of its own (FerretDB). An entry is one document's write hold: taken by a
 * `create`, renewed by an `update` against its revision, given back by a delete of that revision, and
 * gone by itself after the bucket's TTL when its holder died. Only the service's own replicas use it.
 */
export const HoldBuckets = {
  orders: { bucket: "ramp_holds_orders", owner: "orders" },
  banking: { bucket: "ramp_holds_banking", owner: "banking" },
  chainWatcher: { bucket: "ramp_holds_chain_watcher", owner: "chain-watcher" },
} as const satisfies Record<string, LeaseBucketContract>;

/**
 * Limit buckets: what a service's replicas share so a limit holds for the service as a whole, not for
 * each process (the gateway's per-API-key request rate: N replicas still allow the documented rate, not
 * N times it). Entries are per limited key and expire after the bucket's TTL once the key goes quiet.
 */
export const LimitBuckets = {
  gateway: { bucket: "ramp_limits_gateway", owner: "gateway" },
} as const satisfies Record<string, LeaseBucketContract>;
