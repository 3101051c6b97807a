/**
 * Change feeds: NATS KV buckets through which the one service that owns some records tells every one of
 * its replicas that a record changed, so each replica can keep that record in memory and still answer
 * exactly what the database holds. A key is `<kind>.<id>`; its value carries nothing a reader trusts —
 * a replica drops its copy and reads its own database again — so the database stays the only truth and
 * two writers racing can never leave a replica holding the older value.
 */
export interface ChangeFeedContract<K extends string = string> {
  /** The KV bucket; its stream is `KV_<bucket>`, its subjects `$KV.<bucket>.>`. */
  readonly bucket: string;
  /**
   * The service that writes the bucket. Its replicas watch it; another service may watch it read-only
   * where `follows` in ownership.ts says so.
   */
  readonly owner: string;
  readonly kinds: readonly K[];
}

const feed = <K extends string>(
  bucket: string,
  owner: string,
  kinds: readonly K[],
): ChangeFeedContract<K> => ({
  bucket,
  owner,
  kinds,
});

export const ChangeFeeds = {
  /** Market rates by currency, business fee profiles by business id. */
  pricing: feed("ramp_pricing_changes", "pricing", ["market-rate", "profile"] as const),
  /** API keys by the SHA-256 hex of the key (never the key itself); businesses (suspension) by id. */
  gateway: feed("ramp_gateway_changes", "gateway", ["api-key", "business"] as const),
  /** Webhook configs (URLs) and signing secrets (rotation) by API key id. */
  webhooks: feed("ramp_webhook_changes", "webhook-dispatcher", ["config", "signing", "health"] as const),
} as const;

/** The kinds of record one feed carries, e.g. `"market-rate" | "profile"`. */
export type ChangeKind<F extends ChangeFeedContract> = F["kinds"][number];
