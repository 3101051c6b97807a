import type { Collection, Db } from "mongodb";
import { dropExpired, expiringIndex } from "./expiring.ts";

export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_SECONDS = 15 * 60;

/** Failed sign-ins of one email (known or not) in the window that began with the first of them. */
interface FailureDoc {
  _id: string; // the email, lower-cased
  count: number;
  since: Date;
  expiresAt: Date;
}

export interface Lockout {
  init(): Promise<void>;
  /** Seconds until this email may try again; 0 when it may now. */
  retryAfter(email: string): Promise<number>;
  failed(email: string): Promise<void>;
  succeeded(email: string): Promise<void>;
}

export function createLockout(db: Db, now: () => number): Lockout {
  const failures: Collection<FailureDoc> = db.collection("sign_in_failures");
  const windowMs = LOCKOUT_WINDOW_SECONDS * 1000;
  return {
    async init() {
      await expiringIndex(failures);
    },

    async retryAfter(email) {
      const doc = await failures.findOne({ _id: email });
      if (!doc || doc.count < LOCKOUT_FAILURES) return 0;
      const left = doc.since.getTime() + windowMs - now();
      return left > 0 ? Math.ceil(left / 1000) : 0;
    },

    async failed(email) {
      const at = now();
      const counted = await failures.updateOne(
        { _id: email, since: { $gt: new Date(at - windowMs) } },
        { $inc: { count: 1 } },
      );
      if (counted.matchedCount === 0) {
        await dropExpired(failures, at);
        // No window open (or the last one passed): this failure opens a new one.
        await failures.replaceOne(
          { _id: email },
          { count: 1, since: new Date(at), expiresAt: new Date(at + windowMs) },
          { upsert: true },
        );
      }
    },

    async succeeded(email) {
      await failures.deleteOne({ _id: email });
    },
  };
}
