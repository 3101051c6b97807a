import { z } from "zod";
import { ConsoleListQuery, consolePage } from "./console.ts";

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

const dateTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" });

/** `actor` is a person's id or email, or `admin-token`; `from` inclusive, `to` exclusive. */
export const AuditFilter = z.strictObject({
  actor: z.string().min(1).max(254).optional(),
  action: z.string().min(1).max(100).optional(),
  from: dateTime.optional(),
  to: dateTime.optional(),
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
