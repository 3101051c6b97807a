import type { Db } from "mongodb";
import { type AuditLog, createAuditLog } from "../audit/audit-log.ts";
import { createLockout, type Lockout } from "./lockout.ts";
import { createPeopleStore, type PeopleStore } from "./people-store.ts";
import { ABSOLUTE_SESSION_SECONDS, createSessionStore, type SessionStore } from "./sessions.ts";

export interface ConsoleStores {
  people: PeopleStore;
  sessions: SessionStore;
  lockout: Lockout;
  audit: AuditLog;
}

/** The console's people, sessions, sign-in failures and audit log, in the gateway's database; indexes made. */
export async function openConsoleStores(
  db: Db,
  opts: { idleSeconds: number; now: () => number; secretKey: Buffer },
): Promise<ConsoleStores> {
  const stores = {
    people: createPeopleStore(db, opts.secretKey),
    sessions: createSessionStore(db, {
      idleSeconds: opts.idleSeconds,
      absoluteSeconds: ABSOLUTE_SESSION_SECONDS,
      now: opts.now,
    }),
    lockout: createLockout(db, opts.now),
    audit: createAuditLog(db),
  };
  await Promise.all([
    stores.people.init(),
    stores.sessions.init(),
    stores.lockout.init(),
    stores.audit.init(),
  ]);
  return stores;
}
