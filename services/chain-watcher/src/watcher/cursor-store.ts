import type { Chain } from "@ramp/contracts";
import type { Db } from "mongodb";

interface CursorDoc {
  _id: Chain;
  cursor: string;
  updatedAt: Date;
}

/** Each chain's resume point, advanced only after every transfer before it is stored and published. */
export function createCursorStore(db: Db) {
  const cursors = db.collection<CursorDoc>("chain_cursors");
  return {
    async get(chain: Chain): Promise<string | null> {
      return (await cursors.findOne({ _id: chain }))?.cursor ?? null;
    },
    async set(chain: Chain, cursor: string): Promise<void> {
      await cursors.updateOne({ _id: chain }, { $set: { cursor, updatedAt: new Date() } }, { upsert: true });
    },
  };
}
export type CursorStore = ReturnType<typeof createCursorStore>;
