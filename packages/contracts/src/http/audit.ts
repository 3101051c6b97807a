import { z } from "zod";
import { boundedString } from "../text.ts";
import { ConsoleListQuery, consolePage } from "./console.ts";
import { DateTimeFilter } from "./transaction-list.ts";

export const AuditActorKind = z.enum(["operator", "member", "admin-token"]);

export const AuditActor = z.object({
  kind: AuditActorKind,
  id: z.string().optional(),
  email: z.string().optional(),
});
export type AuditActor = z.infer<typeof AuditActor>;

/**
 * One write through /console/v1 or /admin/v1. `action` is the route's operationId (its key in the
 * route table); `target` names what changed (`member:<id>`, or the request path when nothing more
 * particular applies); `before`/`after` are the changed fields, never a secret.
 */
export const AuditEntryDto = z.object({
  id: z.string(),
  at: z.string(),
  actor: AuditActor,
  action: z.string(),
  target: z.string(),
  before: z.record(z.string(), z.unknown()).optional(),
  after: z.record(z.string(), z.unknown()).optional(),
  requestId: z.string(),
});
export type AuditEntryDto = z.infer<typeof AuditEntryDto>;

/** `actor` is a person's id or email, or `admin-token`; `from` inclusive, `to` exclusive. */
export const AuditFilter = z.strictObject({
  actor: boundedString(254, { min: 1 }).optional(),
  action: boundedString(100, { min: 1 }).optional(),
  from: DateTimeFilter.optional(),
  to: DateTimeFilter.optional(),
});
export type AuditFilter = z.infer<typeof AuditFilter>;

export const AuditQuery = ConsoleListQuery.extend(AuditFilter.shape);
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditPage = consolePage(AuditEntryDto);

export const AUDIT_CSV_FIELDS = [
  "id",
  "at",
  "actorKind",
  "actorId",
  "actorEmail",
  "action",
  "target",
  "before",
  "after",
  "requestId",
] as const;
