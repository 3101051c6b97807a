import type { Logger, TraceContext } from "@ramp/runtime";
import type { AuditNote } from "./audit/audit-log.ts";
import type { Caller } from "./auth/api-keys.ts";
import type { PersonDoc } from "./people/people-store.ts";

/** Typed `c.var` of every request. */
export interface GatewayEnv {
  Variables: {
    trace: TraceContext;
    log: Logger;
    caller: Caller;
    /** Set when the request carries an Idempotency-Key: what the owning service dedupes its effect by. */
    idempotencyKey: string | undefined;
    /** The signed-in person of a console request (and of a successful sign-in). */
    person: PersonDoc;
    /** The console session's cookie value (for signing out) and its CSRF token. */
    sessionId: string;
    csrfToken: string;
    /** What the handler of an audited write says about it (see `noteAudit`). */
    audit: AuditNote;
  };
}
