import { randomBytes } from "node:crypto";
import { sha256Hex } from "@ramp/runtime";
import type { Collection, Db } from "mongodb";
import { dropExpired, expiringIndex } from "./expiring.ts";

/** Only the hash of the session id is stored: a read of the database does not sign anyone in. */
interface SessionDoc {
  _id: string; // sha256(session id) hex
  personId: string;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** When it dies if unused: the sooner of idle and absolute expiry (then removed, see `expiringIndex`). */
  expiresAt: Date;
}

export interface Session {
  personId: string;
  csrfToken: string;
}

export interface SessionStore {
  init(): Promise<void>;
  /** The cookie value (shown once) and its CSRF token. */
  create(personId: string): Promise<{ id: string; csrfToken: string }>;
  /** The live session of this cookie value, its idle clock restarted; null when unknown or expired. */
  resolve(id: string): Promise<Session | null>;
  end(id: string): Promise<void>;
  /** Removing a person or changing its password ends every session it has. */
  endAllOf(personId: string): Promise<void>;
}

export interface SessionTimes {
  idleSeconds: number;
  absoluteSeconds: number;
  now: () => number;
}

export const ABSOLUTE_SESSION_SECONDS = 12 * 3600;

/** The idle clock is written at most this often, so a busy console does not write on every request. */
const TOUCH_EVERY_MS = 10_000;

export function createSessionStore(db: Db, times: SessionTimes): SessionStore {
  const sessions: Collection<SessionDoc> = db.collection("sessions");
  const expiry = (createdAt: number, seenAt: number) =>
    new Date(Math.min(seenAt + times.idleSeconds * 1000, createdAt + times.absoluteSeconds * 1000));
  return {
    async init() {
      await expiringIndex(sessions);
      await sessions.createIndex({ personId: 1 });
    },

    async create(personId) {
      const id = randomBytes(32).toString("base64url");
      const csrfToken = randomBytes(32).toString("base64url");
      const now = times.now();
      await dropExpired(sessions, now);
      await sessions.insertOne({
        _id: sha256Hex(id),
        personId,
        csrfToken,
        createdAt: new Date(now),
        lastSeenAt: new Date(now),
        expiresAt: expiry(now, now),
      });
      return { id, csrfToken };
    },

    async resolve(id) {
      const _id = sha256Hex(id);
      const doc = await sessions.findOne({ _id });
      if (!doc) return null;
      const now = times.now();
      // Checked here, not left to a TTL index: that runs about once a minute, where there is one.
      if (doc.expiresAt.getTime() <= now) {
        await sessions.deleteOne({ _id });
        return null;
      }
      if (now - doc.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
        await sessions.updateOne(
          { _id },
          { $set: { lastSeenAt: new Date(now), expiresAt: expiry(doc.createdAt.getTime(), now) } },
        );
      }
      return { personId: doc.personId, csrfToken: doc.csrfToken };
    },

    async end(id) {
      await sessions.deleteOne({ _id: sha256Hex(id) });
    },

    async endAllOf(personId) {
      await sessions.deleteMany({ personId });
    },
  };
}
