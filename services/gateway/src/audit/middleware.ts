import type { AuditActor, RouteDef } from "@ramp/contracts";
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { GatewayEnv } from "../env.ts";
import type { AuditLog, AuditNote } from "./audit-log.ts";

export const noteAudit = (c: Context<GatewayEnv>, note: AuditNote) => c.set("audit", note);

function actorOf(route: RouteDef, c: Context<GatewayEnv>): AuditActor {
  if (route.auth === "admin") return { kind: "admin-token" };
  const person = c.get("person");
  // The console guard sets the person on every console route, sign-in sets it itself.
  if (!person) throw new Error(`audited route ${route.path} has no actor`);
  return { kind: person.kind, id: person._id.toHexString(), email: person.email };
}

/**
 * Wraps every audited route (contracts' `isAudited`): after a successful answer, exactly one entry
 * (or, when the database refuses it through every retry, an error log line holding it).
 * A failed request changed nothing and leaves none. A handler that noted nothing still gets its
 * entry, targeted at the request path, so no route can leave a write unrecorded.
 */
export function auditWrites(log: AuditLog) {
  return (route: RouteDef, action: string): MiddlewareHandler<GatewayEnv> =>
    createMiddleware<GatewayEnv>(async function audit(c, next) {
      await next();
      if (c.error || c.res.status >= 400) return;
      const note = c.get("audit");
      const actor = actorOf(route, c);
      const person = c.get("person");
      const entry = {
        actor,
        action,
        target: note?.target ?? c.req.path,
        ...(note?.before ? { before: note.before } : {}),
        ...(note?.after ? { after: note.after } : {}),
        requestId: c.get("trace").requestId,
        businessId: note?.businessId !== undefined ? note.businessId : (person?.businessId ?? null),
      };
      try {
        await log.append(entry);
      } catch (err) {
        // The write is done: answering an error now would have the client do it again. The entry
        // goes to the log instead, whole (notes hold no secrets), for an operator to restore.
        c.get("log").error(
          { err, auditEntry: entry },
          "audit entry not stored after retries; it is in this line",
        );
      }
    });
}
