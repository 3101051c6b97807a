import { z } from "zod";
import { MemberRole, OperatorRole, PersonKind } from "../enums.ts";
import { boundedString, shapedString, TEXT_MAX } from "../text.ts";
import { ObjectIdString } from "./transactions.ts";

/** An authenticator app's code. */
const TOTP_CODE = /^\d{6}$/;
const TOTP_CODE_MESSAGE = "must be 6 digits";

export const PASSWORD_MIN_LENGTH = 12;
/** Bounded so a sign-in cannot make the KDF hash megabytes. */
export const PASSWORD_MAX_LENGTH = 256;

/** Compared case-insensitively: kept lower-cased. */
export const Email = boundedString(254)
  .pipe(z.email())
  .transform((e) => e.toLowerCase());
export const Password = boundedString(PASSWORD_MAX_LENGTH, { min: PASSWORD_MIN_LENGTH });

export const CreateOperatorRequest = z.strictObject({ email: Email, password: Password, role: OperatorRole });
export type CreateOperatorRequest = z.infer<typeof CreateOperatorRequest>;

export const OperatorDto = z.object({ id: z.string(), email: z.string(), role: OperatorRole });
export type OperatorDto = z.infer<typeof OperatorDto>;

export const SignInRequest = z.strictObject({
  // Not `Email`: a malformed address is just another wrong sign-in, answered like every other one.
  email: boundedString(254, { min: 1 }),
  password: boundedString(PASSWORD_MAX_LENGTH, { min: 1 }),
  /** The 6-digit code, required once the person has enrolled TOTP. */
  totp: shapedString(6, TOTP_CODE, TOTP_CODE_MESSAGE).optional(),
});
export type SignInRequest = z.infer<typeof SignInRequest>;

export const ConsoleUser = z.object({
  id: z.string(),
  email: z.string(),
  kind: PersonKind,
  role: z.union([OperatorRole, MemberRole]),
  businessId: z.string().nullable(),
  totpEnabled: z.boolean(),
});
export type ConsoleUser = z.infer<typeof ConsoleUser>;

/** Every unsafe console request echoes `csrfToken` in the `x-csrf-token` header. */
export const SessionDto = z.object({ user: ConsoleUser, csrfToken: z.string() });
export type SessionDto = z.infer<typeof SessionDto>;

export const CSRF_HEADER = "x-csrf-token";
export const SESSION_COOKIE = "ramp_session";

/** A pending TOTP secret: shown once, active only after a code made from it is confirmed. */
export const TotpEnrolmentDto = z.object({ secret: z.string(), otpauthUri: z.string() });
export const TotpConfirmRequest = z.strictObject({ code: shapedString(6, TOTP_CODE, TOTP_CODE_MESSAGE) });

export const PersonParams = z.strictObject({ id: ObjectIdString });

export const CONSOLE_PAGE_DEFAULT = 20;
export const CONSOLE_PAGE_MAX = 100;

/** The list conventions of every console list: newest first, one page after the opaque cursor. */
export const ConsoleListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(CONSOLE_PAGE_MAX).default(CONSOLE_PAGE_DEFAULT),
  cursor: boundedString(TEXT_MAX.cursor).optional(),
});
export type ConsoleListQuery = z.infer<typeof ConsoleListQuery>;

/** `{data, nextCursor}`, `nextCursor` "" on the last page. */
export const consolePage = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string() });

export const OperatorPage = consolePage(OperatorDto);

export const MemberDto = z.object({
  id: z.string(),
  email: z.string(),
  role: MemberRole,
  businessId: z.string(),
});
export type MemberDto = z.infer<typeof MemberDto>;
export const MemberPage = consolePage(MemberDto);

/** Operators name the business; a member's own business is implied (and any other is refused). */
export const MemberListQuery = ConsoleListQuery.extend({ businessId: ObjectIdString.optional() });
export type MemberListQuery = z.infer<typeof MemberListQuery>;
export const CreateMemberRequest = z.strictObject({
  email: Email,
  password: Password,
  role: MemberRole,
  businessId: ObjectIdString.optional(),
});
export type CreateMemberRequest = z.infer<typeof CreateMemberRequest>;
