import type { Chain } from "@ramp/contracts";
import type { Db } from "mongodb";

interface CursorDoc {
  _id: Chain;
  cursor: string;
  updatedAt: Date;
}

/** Each chain's resume point, advanced only after every transfer before it is stored and published. */
export interface CursorStore {
  get(chain: Chain): Promise<string | null>;
  set(chain: Chain, cursor: string): Promise<void>;
}

export function createCursorStore(db: Db): CursorStore {
  const cursors = db.collection<CursorDoc>("chain_cursors");
  return {
    async get(chain) {
      return (await cursors.findOne({ _id: chain }))?.cursor ?? null;
    },
    async set(chain, cursor) {
      await cursors.updateOne({ _id: chain }, { $set: { cursor, updatedAt: new Date() } }, { upsert: true });
    },
  };
}
