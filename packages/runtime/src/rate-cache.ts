import type { NatsConnection } from "@nats-io/transport-node";
import { AppError, ChangeFeeds, type ChangeKind, type Currency, type RatesDto, Rpc } from "@ramp/contracts";
import { followChangeFeed } from "./change-feed.ts";
import { deepFreeze } from "./deep-freeze.ts";
import { createExactCache } from "./exact-cache.ts";
import type { Logger } from "./logger.ts";
import { callRpc } from "./rpc.ts";
import type { TraceContext } from "./trace.ts";

/** What pricing answered for one business and currency: its rates, or its 404 (kept too: misses are reads). */
type Answer = RatesDto | AppError;
/** `<businessId>/<currency>`: a business id is ObjectId hex, so the slash cannot occur inside it. */
type RateKey = `${string}/${Currency}`;

/** Businesses × currencies asked for lately; past it the oldest answers are asked of pricing again. */
const CACHED_RATES = 20_000;

export interface RateCache {
  /** A business's rates in one currency, as pricing computes them; throws pricing's error (404 included). */
  get(businessId: string, currency: Currency, trace: TraceContext): Promise<RatesDto>;
  stop(): Promise<void>;
}

/**
 * `rates.get` answers kept in a service's memory (the gateway's for `GET /pub/v2/rate`, orders' for
 * pricing each order): every rate read would otherwise be a NATS round trip to pricing, most of the
 * gateway's cost per rate request and one of an order's few hops. Pricing stays the only writer and the
 * only place a rate is computed; a kept answer is dropped when pricing's change feed reports its market
 * rate or the business's fee profile changed, and everything is forgotten while that feed cannot be
 * watched. A service using it follows pricing's feed (`follows` in contracts' ownership).
 */
export function createRateCache(nc: NatsConnection, log: Logger): RateCache {
  let live = false;
  const ask = async (
    businessId: string,
    currency: Currency,
    trace: TraceContext | undefined,
    fresh: boolean,
  ): Promise<Answer> => {
    try {
      return await callRpc(nc, Rpc.ratesGet, { businessId, currency, ...(fresh && { fresh }) }, trace);
    } catch (err) {
      if (err instanceof AppError && err.code === "NOT_FOUND") return err;
      throw err;
    }
  };
  // Answers to keep are computed from pricing's database: after a change this gateway has seen, the
  // pricing replica that answers may not have seen it yet, and its memory may still hold the older rate.
  // One that was in flight when a change arrived is not kept either (the cache's own rule).
  // Kept answers are shared by every reader: deeply frozen, so none can change another's (and their JSON
  // text may be written once, see the gateway's reply).
  const cache = createExactCache<Answer, RateKey, TraceContext>(async (key, trace) => {
    const slash = key.lastIndexOf("/");
    const answer = await ask(key.slice(0, slash), key.slice(slash + 1) as Currency, trace, true);
    return answer instanceof AppError ? answer : deepFreeze(answer);
  }, CACHED_RATES);
  const dropFor = (kind: ChangeKind<typeof ChangeFeeds.pricing>, id: string) => {
    switch (kind) {
      case "market-rate":
        return cache.dropWhere((key) => key.endsWith(`/${id}`));
      case "profile":
        return cache.dropWhere((key) => key.startsWith(`${id}/`));
    }
  };
  const feed = followChangeFeed(nc, ChangeFeeds.pricing, log, {
    changed: dropFor,
    live(next) {
      live = next;
      cache.setLive(next);
    },
  });

  return {
    async get(businessId, currency, trace) {
      const answer = live
        ? await cache.get(`${businessId}/${currency}`, trace)
        : await ask(businessId, currency, trace, false);
      if (answer instanceof AppError) throw answer;
      return answer;
    },
    stop: feed.stop,
  };
}
