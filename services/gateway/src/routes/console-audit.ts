import { Routes } from "@ramp/contracts";
import type { AuditLog, AuditScope } from "../audit/audit-log.ts";
import type { PersonDoc } from "../people/people-store.ts";
import type { Register } from "../register.ts";

/** A member reads its business's entries only; an operator reads all. */
const scopeOf = (person: PersonDoc): AuditScope =>
  person.kind === "member" ? { businessId: person.businessId ?? "" } : {};

export function consoleAuditRoutes(register: Register, audit: AuditLog) {
  register(Routes.consoleAuditList, (c, { query }) => audit.page(scopeOf(c.var.person), query));
  register(Routes.consoleAuditExport, (c, { query }) => audit.csv(scopeOf(c.var.person), query));
}
