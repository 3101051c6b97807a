import type { JetStreamClient } from "@nats-io/jetstream";
import { type Chain, Events, type TreasuryChainDto } from "@ramp/contracts";
import { type Logger, publish } from "@ramp/runtime";
import type { Db } from "mongodb";

/** A chain's current run below its minimum, kept so a restart continues the same exception. */
interface LowEpisodeDoc {
  _id: Chain;
  since: Date;
}

const keyOf = (e: LowEpisodeDoc) => `treasury-low:${e._id}:${e.since.getTime()}`;

/**
 * Raises `treasury-low` in the exceptions queue while a chain's treasury is below its minimum and
 * clears it once it is back above. Every reading repeats what it saw (the queue keeps one exception
 * per key, JetStream drops a repeat within its window), so a crash between a reading and its message
 * loses nothing; the episode's start is stored first, so a restart names the same exception.
 */
export function createTreasuryLowSignals(deps: { db: Db; js: JetStreamClient; log: Logger }) {
  const episodes = deps.db.collection<LowEpisodeDoc>("treasury_low");
  return async function signal(t: TreasuryChainDto): Promise<void> {
    if (t.low) {
      await episodes.updateOne({ _id: t.chain }, { $setOnInsert: { since: new Date() } }, { upsert: true });
      const episode = await episodes.findOne({ _id: t.chain });
      if (!episode) return;
      const key = keyOf(episode);
      await publish(
        deps.js,
        Events.chainExceptions,
        {
          action: "raise",
          key,
          kind: "treasury-low",
          businessId: null,
          chain: t.chain,
          ...(t.stablecoin ? { token: t.stablecoin.symbol, amount: t.stablecoin.balance } : {}),
          since: episode.since.toISOString(),
          detail: `treasury ${t.address} holds ${t.stablecoin?.balance ?? "?"} ${t.stablecoin?.symbol ?? ""}, below its minimum ${t.minimum}`,
        },
        `${key}:raise`,
      );
      return;
    }
    const episode = await episodes.findOne({ _id: t.chain });
    if (!episode) return;
    const key = keyOf(episode);
    const note = `treasury back at ${t.stablecoin?.balance ?? "?"}, above its minimum ${t.minimum}`;
    await publish(deps.js, Events.chainExceptions, { action: "clear", key, note }, `${key}:clear`);
    await episodes.deleteOne({ _id: t.chain, since: episode.since });
    deps.log.info({ chain: t.chain, key }, "treasury-low cleared");
  };
}
export type TreasuryLowSignal = ReturnType<typeof createTreasuryLowSignals>;
