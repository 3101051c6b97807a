import {
  AppError,
  badRequest,
  MemberRole,
  notFound,
  OperatorRole,
  Routes,
  SESSION_COOKIE,
  type SessionDto,
} from "@ramp/contracts";
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { noteAudit } from "../audit/middleware.ts";
import type { KeyStore } from "../auth/api-keys.ts";
import type { GatewayEnv } from "../env.ts";
import type { Lockout } from "../people/lockout.ts";
import { verifyPassword } from "../people/passwords.ts";
import { type PeopleStore, type PersonDoc, userOf } from "../people/people-store.ts";
import { ABSOLUTE_SESSION_SECONDS, type SessionStore } from "../people/sessions.ts";
import { newTotpSecret, totpStep, totpUri, totpValid } from "../people/totp.ts";
import type { Register } from "../register.ts";
import { businessScope } from "./console-keys.ts";

export interface PeopleDeps {
  people: PeopleStore;
  sessions: SessionStore;
  lockout: Lockout;
  keys: KeyStore;
  sandbox: boolean;
  trustProxy: boolean;
  now: () => number;
}

const invalidSignIn = () => new AppError("UNAUTHORIZED", "Invalid email or password");

/** `Secure` always, except over plain http on a sandbox deployment (the local console). */
function secureCookie(c: Context<GatewayEnv>, deps: PeopleDeps) {
  if (!deps.sandbox) return true;
  const forwarded = deps.trustProxy ? c.req.header("x-forwarded-proto") : undefined;
  return (forwarded ?? new URL(c.req.url).protocol.replace(":", "")) !== "http";
}

/** Sign-in, the session, TOTP enrolment, and the people who sign in (operators and members). */
export function consolePeopleRoutes(register: Register, deps: PeopleDeps) {
  const { people, sessions, lockout } = deps;

  register(Routes.adminOperatorCreate, async (c, { body }) => {
    const doc = await people.create({ kind: "operator", ...body });
    noteAudit(c, {
      target: `operator:${doc._id.toHexString()}`,
      after: { email: doc.email, role: doc.role },
    });
    return { id: doc._id.toHexString(), email: doc.email, role: body.role };
  });

  register(Routes.consoleSignIn, async (c, { body }) => {
    const email = body.email.toLowerCase();
    const wait = await lockout.retryAfter(email);
    if (wait > 0) {
      c.header("Retry-After", String(wait));
      throw new AppError("RATE_LIMITED", "Too many failed sign-ins; try again later");
    }
    const person = await people.byEmail(email);
    // The KDF runs whether or not the email is known, so both misses take the same time.
    const passwordOk = await verifyPassword(body.password, person?.passwordHash ?? null);
    if (!person || !passwordOk) {
      await lockout.failed(email);
      throw invalidSignIn();
    }
    if (person.totpSecret !== null) {
      if (body.totp === undefined) throw new AppError("UNAUTHORIZED", "TOTP code required");
      const step = totpStep(person.totpSecret, body.totp, deps.now());
      if (step === null || !(await people.useTotpStep(person._id, step))) {
        await lockout.failed(email);
        throw new AppError("UNAUTHORIZED", "Invalid TOTP code");
      }
    }
    await lockout.succeeded(email);
    const { id, csrfToken } = await sessions.create(person._id.toHexString());
    setCookie(c, SESSION_COOKIE, id, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: secureCookie(c, deps),
      maxAge: ABSOLUTE_SESSION_SECONDS,
    });
    c.set("person", person);
    noteAudit(c, { target: `person:${person._id.toHexString()}` });
    return { user: userOf(person), csrfToken } satisfies SessionDto;
  });

  register(Routes.consoleSignOut, async (c) => {
    await sessions.end(c.var.sessionId);
    noteAudit(c, { target: `person:${c.var.person._id.toHexString()}` });
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
  });

  register(Routes.consoleMe, (c) => ({ user: userOf(c.var.person), csrfToken: c.var.csrfToken }));

  register(Routes.consoleTotpEnrol, async (c) => {
    const person = c.var.person;
    if (person.totpSecret !== null) throw new AppError("CONFLICT", "TOTP is already enabled");
    const secret = newTotpSecret();
    await people.setPendingTotp(person._id.toHexString(), secret);
    noteAudit(c, { target: `person:${person._id.toHexString()}` });
    return { secret, otpauthUri: totpUri(secret, person.email) };
  });

  register(Routes.consoleTotpConfirm, async (c, { body }) => {
    const person = c.var.person;
    if (person.totpSecret !== null) throw new AppError("CONFLICT", "TOTP is already enabled");
    const pending = person.pendingTotpSecret;
    if (pending === null) throw new AppError("CONFLICT", "No TOTP enrolment in progress");
    if (!totpValid(pending, body.code, deps.now())) throw badRequest("Invalid TOTP code");
    if (!(await people.enableTotp(person._id.toHexString(), pending))) {
      throw new AppError("CONFLICT", "No TOTP enrolment in progress");
    }
    noteAudit(c, {
      target: `person:${person._id.toHexString()}`,
      before: { totpEnabled: false },
      after: { totpEnabled: true },
    });
    return userOf({ ...person, totpSecret: pending, pendingTotpSecret: null });
  });

  // The stored kind decides the role's set: parsing says so to the type checker too.
  const operatorDto = (d: PersonDoc) => ({
    id: d._id.toHexString(),
    email: d.email,
    role: OperatorRole.parse(d.role),
  });
  register(Routes.consoleOperatorList, async (_c, { query }) => {
    const page = await people.list({ kind: "operator" }, query);
    return { data: page.data.map(operatorDto), nextCursor: page.nextCursor };
  });
  register(Routes.consoleOperatorCreate, async (c, { body }) => {
    const doc = await people.create({ kind: "operator", ...body });
    noteAudit(c, {
      target: `operator:${doc._id.toHexString()}`,
      after: { email: doc.email, role: doc.role },
    });
    return { id: doc._id.toHexString(), email: doc.email, role: body.role };
  });
  register(Routes.consoleOperatorDelete, async (c, { params: { id } }) => {
    if (id === c.var.person._id.toHexString()) throw badRequest("You cannot remove yourself");
    const removed = await people.remove(id, { kind: "operator" });
    if (!removed) throw notFound("Operator not found");
    noteAudit(c, { target: `operator:${id}`, before: { email: removed.email, role: removed.role } });
    await sessions.endAllOf(id);
  });

  const memberDto = (d: PersonDoc) => ({
    id: d._id.toHexString(),
    email: d.email,
    role: MemberRole.parse(d.role),
    businessId: d.businessId ?? "",
  });
  register(Routes.consoleMemberList, async (c, { query: { businessId, ...page } }) => {
    const scope = businessScope(c.var.person, businessId);
    const found = await people.list({ kind: "member", businessId: scope }, page);
    return { data: found.data.map(memberDto), nextCursor: found.nextCursor };
  });
  register(Routes.consoleMemberCreate, async (c, { body: { businessId, ...body } }) => {
    const scope = businessScope(c.var.person, businessId);
    if (scope === undefined) throw badRequest(["businessId is required"]);
    if (!(await deps.keys.businessExists(scope))) throw notFound("Business not found");
    const doc = await people.create({ kind: "member", ...body, businessId: scope });
    const after = { email: doc.email, role: doc.role, businessId: scope };
    noteAudit(c, { target: `member:${doc._id.toHexString()}`, after, businessId: scope });
    return memberDto(doc);
  });
  register(Routes.consoleMemberDelete, async (c, { params: { id } }) => {
    const person = c.var.person;
    if (id === person._id.toHexString()) throw badRequest("You cannot remove yourself");
    const scope = person.kind === "member" ? (person.businessId ?? "") : undefined;
    const removed = await people.remove(id, { kind: "member", businessId: scope });
    if (!removed) throw notFound("Member not found");
    const before = { email: removed.email, role: removed.role, businessId: removed.businessId };
    noteAudit(c, { target: `member:${id}`, before, businessId: removed.businessId });
    await sessions.endAllOf(id);
  });
}
