import { timingSafeEqual } from "node:crypto";
import { AppError, CSRF_HEADER, forbidden, type RouteDef, SESSION_COOKIE } from "@ramp/contracts";
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { GatewayEnv } from "../env.ts";
import type { PeopleStore, PersonDoc } from "../people/people-store.ts";
import type { SessionStore } from "../people/sessions.ts";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export const notSignedIn = () => new AppError("UNAUTHORIZED", "Not signed in");

/** Whether the route's `access` admits this person (kind and role), and before TOTP enrolment if needed. */
export function admits(route: RouteDef, person: PersonDoc, totpRequired: boolean): "yes" | "role" | "totp" {
  const roles: readonly string[] | undefined = route.access?.[person.kind];
  if (!roles?.includes(person.role)) return "role";
  if (totpRequired && person.kind === "operator" && person.totpSecret === null && !route.access?.beforeTotp) {
    return "totp";
  }
  return "yes";
}

/**
 * The guard of every console route, the one place roles are enforced: the session cookie (never an
 * API key), the CSRF header on unsafe methods, then the route's declared access.
 */
export function consoleAuth(deps: { sessions: SessionStore; people: PeopleStore; totpRequired: boolean }) {
  return (route: RouteDef): MiddlewareHandler<GatewayEnv> =>
    createMiddleware<GatewayEnv>(async function consoleAuth(c, next) {
      const id = getCookie(c, SESSION_COOKIE);
      const session = id ? await deps.sessions.resolve(id) : null;
      const person = session ? await deps.people.byId(session.personId) : null;
      if (!id || !session || !person) throw notSignedIn();
      if (UNSAFE.has(c.req.method) && !sameText(c.req.header(CSRF_HEADER) ?? "", session.csrfToken)) {
        throw forbidden("CSRF token missing or wrong");
      }
      const verdict = admits(route, person, deps.totpRequired);
      if (verdict === "role") throw forbidden();
      if (verdict === "totp") throw forbidden("TOTP enrolment required");
      c.set("person", person);
      c.set("sessionId", id);
      c.set("csrfToken", session.csrfToken);
      c.set("log", c.get("log").child({ personId: person._id.toHexString() }));
      await next();
    });
}
