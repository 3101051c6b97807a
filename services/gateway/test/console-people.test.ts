import { createHash } from "node:crypto";
import { type RouteDef, Routes } from "@ramp/contracts";
import { loadPricingConfig, startPricing } from "@ramp/pricing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCKOUT_WINDOW_SECONDS } from "../src/people/lockout.ts";
import { totpCode } from "../src/people/totp.ts";
import {
  type Browser,
  type ConsoleGateway,
  consoleCall,
  createOperator,
  IDLE_SECONDS,
  signIn,
  startConsoleGateway,
} from "./console-support.ts";

const PASSWORD = "a long enough password";
let gw: ConsoleGateway;
let pricing: { stop(): Promise<void> };
let businessA: string;
let businessB: string;
/** One signed-in browser per role, operators and members of business A. */
const as: Record<string, Browser> = {};
const ids: Record<string, string> = {};

async function addPerson(role: string, kind: "operator" | "member", email: string) {
  if (kind === "operator") {
    const { res, body } = await createOperator(gw.app, email, PASSWORD, role);
    expect(res.status).toBe(201);
    return body.id;
  }
  const res = await consoleCall(gw.app, as.admin as Browser, "POST", "/console/v1/members", {
    email,
    password: PASSWORD,
    role,
    businessId: businessA,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_people" });
  // Real pricing, so the rate routes of the matrix answer as they would.
  pricing = await startPricing(loadPricingConfig(gw.envFor("pricing")));
  businessA = (await gw.keys.createBusiness("A")).id;
  businessB = (await gw.keys.createBusiness("B")).id;
  ids.admin = await addPerson("admin", "operator", "Admin@Example.com");
  as.admin = (await signIn(gw.app, "admin@example.com", PASSWORD)).browser;
  for (const role of ["operator", "viewer"]) {
    ids[role] = await addPerson(role, "operator", `${role}@ops.example`);
    as[role] = (await signIn(gw.app, `${role}@ops.example`, PASSWORD)).browser;
  }
  for (const role of ["owner", "developer", "viewer"]) {
    ids[`member-${role}`] = await addPerson(role, "member", `${role}@a.example`);
    as[`member-${role}`] = (await signIn(gw.app, `${role}@a.example`, PASSWORD)).browser;
  }
});
afterAll(async () => {
  await pricing?.stop();
  await gw?.stop();
});

describe("POST /admin/v1/operators (the bootstrap)", () => {
  it("creates an operator with the admin token only; an email is unique whatever its case", async () => {
    const { res, body } = await createOperator(gw.app, "new.op@example.com", PASSWORD, "viewer");
    expect(res.status).toBe(201);
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      email: "new.op@example.com",
      role: "viewer",
    });
    expect((await createOperator(gw.app, "NEW.OP@example.com", PASSWORD, "admin")).res.status).toBe(409);
    const short = await createOperator(gw.app, "short@example.com", "elevenchars", "admin");
    expect(short.res.status).toBe(400);
    const noToken = await gw.app.request("/admin/v1/operators", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "x@example.com", password: PASSWORD, role: "admin" }),
    });
    expect(noToken.status).toBe(401);
  });

  it("keeps only a scrypt hash of the password", async () => {
    const doc = await gw.db.collection("people").findOne({ email: "new.op@example.com" });
    expect(JSON.stringify(doc)).not.toContain(PASSWORD);
    expect(doc?.passwordHash).toMatch(/^scrypt\$/);
  });
});

describe("sign-in and the session", () => {
  it("answers a wrong password and an unknown email alike, and sets a strict HttpOnly cookie on success", async () => {
    const wrong = await signIn(gw.app, "viewer@ops.example", "not the password!");
    const unknown = await signIn(gw.app, "nobody@ops.example", PASSWORD);
    for (const r of [wrong, unknown]) {
      expect(r.res.status).toBe(401);
      expect(r.body).toEqual({
        statusCode: 401,
        message: "Invalid email or password",
        error: "Unauthorized",
      });
      expect(r.setCookie).toBe("");
    }
    const ok = await signIn(gw.app, "  VIEWER@ops.example ", PASSWORD);
    expect(ok.res.status).toBe(200);
    expect(ok.body.user).toEqual({
      id: ids.viewer,
      email: "viewer@ops.example",
      kind: "operator",
      role: "viewer",
      businessId: null,
      totpEnabled: false,
    });
    expect(ok.setCookie).toMatch(/HttpOnly/);
    expect(ok.setCookie).toMatch(/SameSite=Strict/);
    expect(ok.setCookie).toMatch(/Path=\//);
    // Plain http on a sandbox deployment: no Secure, or the local console could not sign in.
    expect(ok.setCookie).not.toMatch(/Secure/);
    const me = await consoleCall(gw.app, ok.browser, "GET", "/console/v1/me");
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ user: ok.body.user, csrfToken: ok.browser.csrf });
  });

  it("stores only a hash of the session id", async () => {
    const { browser } = await signIn(gw.app, "operator@ops.example", PASSWORD);
    const sessions = gw.db.collection("sessions");
    expect(await sessions.countDocuments({ _id: browser.cookie as never })).toBe(0);
    const hash = createHash("sha256").update(browser.cookie).digest("hex");
    expect(await sessions.countDocuments({ _id: hash as never })).toBe(1);
  });

  it("GET /me without a session, or with a made-up one, is 401 Not signed in", async () => {
    const none = await gw.app.request("/console/v1/me");
    expect(none.status).toBe(401);
    expect(((await none.json()) as { message: string }).message).toBe("Not signed in");
    const made = await consoleCall(gw.app, { cookie: "made-up", csrf: "" }, "GET", "/console/v1/me");
    expect(made.status).toBe(401);
  });

  it("signing out ends the session on the server: the old cookie is refused", async () => {
    const { browser } = await signIn(gw.app, "operator@ops.example", PASSWORD);
    const out = await consoleCall(gw.app, browser, "DELETE", "/console/v1/session");
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/ramp_session=;.*Max-Age=0/);
    expect((await consoleCall(gw.app, browser, "GET", "/console/v1/me")).status).toBe(401);
  });

  it("an unsafe request without the CSRF token, or with another session's, is 403 and changes nothing", async () => {
    const other = (await signIn(gw.app, "admin@example.com", PASSWORD)).browser;
    for (const csrf of [null, "", other.csrf]) {
      const res = await consoleCall(
        gw.app,
        as.admin as Browser,
        "POST",
        "/console/v1/operators",
        { email: "csrf@ops.example", password: PASSWORD, role: "viewer" },
        { csrf },
      );
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toBe("CSRF token missing or wrong");
    }
    expect(await gw.db.collection("people").countDocuments({ email: "csrf@ops.example" })).toBe(0);
    // Reads need no token.
    expect(
      (await consoleCall(gw.app, as.admin as Browser, "GET", "/console/v1/me", undefined, { csrf: null }))
        .status,
    ).toBe(200);
  });
});

describe("session expiry, on the injected clock", () => {
  it("ends after CONSOLE_SESSION_IDLE_SECONDS unused, and use keeps it alive", async () => {
    const { browser } = await signIn(gw.app, "operator@ops.example", PASSWORD);
    gw.clock.now += (IDLE_SECONDS - 60) * 1000;
    expect((await consoleCall(gw.app, browser, "GET", "/console/v1/me")).status).toBe(200);
    gw.clock.now += (IDLE_SECONDS - 60) * 1000; // past the first idle deadline, within the renewed one
    expect((await consoleCall(gw.app, browser, "GET", "/console/v1/me")).status).toBe(200);
    gw.clock.now += (IDLE_SECONDS + 1) * 1000;
    expect((await consoleCall(gw.app, browser, "GET", "/console/v1/me")).status).toBe(401);
  });

  it("ends 12 hours after sign-in however busy it is", async () => {
    const { browser } = await signIn(gw.app, "operator@ops.example", PASSWORD);
    const start = gw.clock.now;
    while (gw.clock.now - start < 12 * 3600 * 1000 - IDLE_SECONDS * 1000) {
      gw.clock.now += (IDLE_SECONDS - 60) * 1000;
      expect((await consoleCall(gw.app, browser, "GET", "/console/v1/me")).status).toBe(200);
    }
    gw.clock.now = start + 12 * 3600 * 1000 + 1000;
    expect((await consoleCall(gw.app, browser, "GET", "/console/v1/me")).status).toBe(401);
  });
});

describe("lockout", () => {
  it("after 5 failures in 15 minutes every attempt is 429 with Retry-After, right password or not", async () => {
    const email = "locked@ops.example";
    await createOperator(gw.app, email, PASSWORD, "viewer");
    for (let i = 0; i < 5; i++)
      expect((await signIn(gw.app, email, "wrong password!!")).res.status).toBe(401);
    const locked = await signIn(gw.app, email, PASSWORD);
    expect(locked.res.status).toBe(429);
    expect(Number(locked.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(locked.res.headers.get("retry-after"))).toBeLessThanOrEqual(LOCKOUT_WINDOW_SECONDS);
    expect(locked.setCookie).toBe("");
    gw.clock.now += (LOCKOUT_WINDOW_SECONDS + 1) * 1000;
    expect((await signIn(gw.app, email, PASSWORD)).res.status).toBe(200);
  });

  it("counts failures for an unknown email too, so a locked answer tells nothing about who exists", async () => {
    for (let i = 0; i < 5; i++) await signIn(gw.app, "ghost@ops.example", "wrong password!!");
    expect((await signIn(gw.app, "ghost@ops.example", PASSWORD)).res.status).toBe(429);
    gw.clock.now += (LOCKOUT_WINDOW_SECONDS + 1) * 1000;
  });
});

describe("TOTP", () => {
  it("enrols with a confirmed code; sign-in then needs a current code", async () => {
    const email = "totp@ops.example";
    await createOperator(gw.app, email, PASSWORD, "operator");
    const { browser } = await signIn(gw.app, email, PASSWORD);
    const enrol = await consoleCall(gw.app, browser, "POST", "/console/v1/me/totp");
    expect(enrol.status).toBe(200);
    const { secret, otpauthUri } = (await enrol.json()) as { secret: string; otpauthUri: string };
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/Ramp:totp%40ops\.example\?/);
    const bad = await consoleCall(gw.app, browser, "POST", "/console/v1/me/totp/confirm", { code: "000000" });
    expect(bad.status).toBe(400);
    const good = await consoleCall(gw.app, browser, "POST", "/console/v1/me/totp/confirm", {
      code: totpCode(secret, gw.clock.now),
    });
    expect(good.status).toBe(200);
    expect(((await good.json()) as { totpEnabled: boolean }).totpEnabled).toBe(true);
    // Kept encrypted: a copy of the database alone cannot make codes.
    const stored = await gw.db.collection("people").findOne({ email });
    expect(stored?.totpSecret).toMatch(/^v1:/);
    expect(JSON.stringify(stored)).not.toContain(secret);

    const without = await signIn(gw.app, email, PASSWORD);
    expect(without.res.status).toBe(401);
    expect(without.body.message).toBe("TOTP code required");
    const wrongCode = await signIn(gw.app, email, PASSWORD, totpCode(secret, gw.clock.now - 300_000));
    expect(wrongCode.res.status).toBe(401);
    expect(wrongCode.body.message).toBe("Invalid TOTP code");
    const code = totpCode(secret, gw.clock.now);
    expect((await signIn(gw.app, email, PASSWORD, code)).res.status).toBe(200);
    // A code works once: someone who saw it cannot sign in with it again.
    const replay = await signIn(gw.app, email, PASSWORD, code);
    expect(replay.res.status).toBe(401);
    expect(replay.body.message).toBe("Invalid TOTP code");
    gw.clock.now += 30_000;
    expect((await signIn(gw.app, email, PASSWORD, totpCode(secret, gw.clock.now))).res.status).toBe(200);
  });
});

describe("the cookie and the API key each open only their own API", () => {
  it("a session cookie is not an API key or the admin token, and an API key is not a session", async () => {
    const admin = as.admin as Browser;
    expect((await consoleCall(gw.app, admin, "GET", "/pub/v2/rate?currency=NGN")).status).toBe(401);
    const adminRoute = await consoleCall(gw.app, admin, "POST", "/admin/v1/businesses", { name: "x" });
    expect(adminRoute.status).toBe(401);
    const sandbox = await consoleCall(
      gw.app,
      admin,
      "POST",
      `/sandbox/v2/payment/${"a".repeat(24)}/deposit`,
      {},
    );
    expect(sandbox.status).toBe(401);
    const { apiKey } = await gw.keys.issueKey(businessA);
    const withKey = await gw.app.request("/console/v1/me", { headers: { "x-api-key": apiKey } });
    expect(withKey.status).toBe(401);
  });
});

/**
 * Every console route × every role. Allowed means the guard let it through (the answer is then the
 * route's own: 2xx, or 400/404/409 for the placeholder input); refused means 403 `Forbidden`.
 */
const OPS = ["admin", "operator", "viewer"];
const MEMBERS = ["member-owner", "member-developer", "member-viewer"];
const ALL = [...OPS, ...MEMBERS];
const allowed: Record<string, string[]> = {
  consoleSignOut: ALL,
  consoleMe: ALL,
  consoleTotpEnrol: ALL,
  consoleTotpConfirm: ALL,
  consoleOperatorList: OPS,
  consoleOperatorCreate: ["admin"],
  consoleOperatorDelete: ["admin"],
  consoleMemberList: ALL,
  consoleMemberCreate: ["admin", "operator", "member-owner"],
  consoleMemberDelete: ["admin", "operator", "member-owner"],
  consoleAuditList: ALL,
  consoleAuditExport: ALL,
  consoleKeyList: ALL,
  consoleKeyCreate: ["admin", "operator", "member-owner"],
  consoleKeyRevoke: ["admin", "operator", "member-owner"],
  consoleKeySecretReveal: ["admin", "operator", "member-owner"],
  consoleKeySecretRotate: ["admin", "operator", "member-owner"],
  consoleKeyWebhookUpdate: ["admin", "operator", "member-owner"],
  consoleKeyWebhookTest: ["admin", "operator", "member-owner", "member-developer"],
  consoleDeliveryList: ALL,
  consoleDeliveryRedeliver: ["admin", "operator", "member-owner", "member-developer"],
  consoleTransactionList: ALL,
  consoleTransactionExport: ALL,
  consoleTransactionGet: ALL,
  consoleOverview: ALL,
  consoleBankAccountList: ALL,
  consoleBankAccountCreate: ["admin", "operator", "member-owner", "member-developer"],
  consolePaymentList: ALL,
  consoleBusinessList: OPS,
  consoleBusinessCreate: ["admin", "operator"],
  consoleBusinessUpdate: ["admin", "operator"],
  consoleRateHistory: OPS,
  consoleRateGet: OPS,
  consoleRateSet: ["admin", "operator"],
  consoleRateDelete: ["admin", "operator"],
  consoleExceptionList: OPS,
  consoleExceptionResolve: ["admin", "operator"],
  consoleFundRefund: ["admin", "operator"],
  consoleTransactionRefund: ["admin", "operator"],
  consoleReconciliation: OPS,
  consoleTreasury: OPS,
  consoleChainReindex: ["admin", "operator"],
};

/** Everyone signs in again: the expiry tests above moved the clock past their first sessions. */
async function signInEveryone() {
  for (const role of ALL) as[role] = (await signIn(gw.app, emailOf(role), PASSWORD)).browser;
}

describe("the role matrix", () => {
  beforeAll(signInEveryone);
  const consoleRoutes = Object.entries(Routes as Record<string, RouteDef>).filter(
    ([, r]) => r.auth === "console",
  );

  it("names every console route", () => {
    expect(consoleRoutes.map(([id]) => id).sort()).toEqual(Object.keys(allowed).sort());
  });

  it("lets each role through exactly the routes it may use", async () => {
    const filler = "f".repeat(24);
    // Sign-out last: it ends the session the other rows use.
    const ordered = [...consoleRoutes].sort(
      ([a], [b]) => Number(a === "consoleSignOut") - Number(b === "consoleSignOut"),
    );
    for (const [id, route] of ordered) {
      const path = route.path.replace(/\{\w+\}/g, filler);
      for (const role of ALL) {
        const res = await consoleCall(
          gw.app,
          as[role] as Browser,
          route.method.toUpperCase(),
          path,
          route.body ? {} : undefined,
        );
        const why = `${role} ${id} → ${res.status}`;
        if (allowed[id]?.includes(role)) {
          expect([200, 201, 204, 400, 404, 409], why).toContain(res.status);
        } else {
          expect(res.status, why).toBe(403);
          expect(((await res.json()) as { message: string }).message, why).toBe("Forbidden");
        }
      }
    }
    await signInEveryone();
  });

  it("a member never reaches another business: its members and ids answer 404", async () => {
    const owner = as["member-owner"] as Browser;
    const bOwner = await consoleCall(gw.app, as.admin as Browser, "POST", "/console/v1/members", {
      email: "owner@b.example",
      password: PASSWORD,
      role: "owner",
      businessId: businessB,
    });
    expect(bOwner.status).toBe(201);
    const bOwnerId = ((await bOwner.json()) as { id: string }).id;
    expect(
      (await consoleCall(gw.app, owner, "GET", `/console/v1/members?businessId=${businessB}`)).status,
    ).toBe(404);
    expect((await consoleCall(gw.app, owner, "DELETE", `/console/v1/members/${bOwnerId}`)).status).toBe(404);
    const addToB = await consoleCall(gw.app, owner, "POST", "/console/v1/members", {
      email: "sneak@b.example",
      password: PASSWORD,
      role: "viewer",
      businessId: businessB,
    });
    expect(addToB.status).toBe(404);
    const mine = await consoleCall(gw.app, owner, "GET", "/console/v1/members");
    const emails = ((await mine.json()) as { data: { email: string }[] }).data.map((m) => m.email);
    expect(emails.sort()).toEqual(["developer@a.example", "owner@a.example", "viewer@a.example"]);
  });

  it("removing a person ends its sessions at once", async () => {
    const email = "leaving@a.example";
    const created = await consoleCall(gw.app, as["member-owner"] as Browser, "POST", "/console/v1/members", {
      email,
      password: PASSWORD,
      role: "developer",
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const leaving = (await signIn(gw.app, email, PASSWORD)).browser;
    expect((await consoleCall(gw.app, leaving, "GET", "/console/v1/me")).status).toBe(200);
    expect(
      (await consoleCall(gw.app, as["member-owner"] as Browser, "DELETE", `/console/v1/members/${id}`))
        .status,
    ).toBe(204);
    expect((await consoleCall(gw.app, leaving, "GET", "/console/v1/me")).status).toBe(401);
  });

  it("lists page newest first with a cursor, without repeats", async () => {
    const first = await consoleCall(gw.app, as.admin as Browser, "GET", "/console/v1/operators?limit=2");
    const page1 = (await first.json()) as { data: { id: string }[]; nextCursor: string };
    expect(page1.data).toHaveLength(2);
    expect(page1.nextCursor).not.toBe("");
    const rest = await consoleCall(
      gw.app,
      as.admin as Browser,
      "GET",
      `/console/v1/operators?limit=100&cursor=${page1.nextCursor}`,
    );
    const page2 = (await rest.json()) as { data: { id: string }[]; nextCursor: string };
    expect(page2.nextCursor).toBe("");
    const all = [...page1.data, ...page2.data].map((o) => o.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual([...all].sort().reverse());
    const garbled = await consoleCall(gw.app, as.admin as Browser, "GET", "/console/v1/operators?cursor=zzz");
    expect(garbled.status).toBe(400);
  });
});

function emailOf(role: string) {
  if (role === "admin") return "admin@example.com";
  if (role.startsWith("member-")) return `${role.slice(7)}@a.example`;
  return `${role}@ops.example`;
}

describe("production mode", () => {
  let prod: ConsoleGateway;
  beforeAll(async () => {
    prod = await startConsoleGateway({ sandbox: false, name: "console_prod" });
  });
  afterAll(async () => prod?.stop());

  it("an operator without TOTP can only enrol; after enrolling everything its role allows works; cookies are Secure", async () => {
    await createOperator(prod.app, "boss@ops.example", PASSWORD, "admin");
    const first = await signIn(prod.app, "boss@ops.example", PASSWORD);
    expect(first.setCookie).toMatch(/Secure/);
    const b = first.browser;
    const blocked = await consoleCall(prod.app, b, "GET", "/console/v1/operators");
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as { message: string }).message).toBe("TOTP enrolment required");
    expect((await consoleCall(prod.app, b, "GET", "/console/v1/me")).status).toBe(200);
    const { secret } = (await (await consoleCall(prod.app, b, "POST", "/console/v1/me/totp")).json()) as {
      secret: string;
    };
    const code = totpCode(secret, prod.clock.now);
    expect((await consoleCall(prod.app, b, "POST", "/console/v1/me/totp/confirm", { code })).status).toBe(
      200,
    );
    expect((await consoleCall(prod.app, b, "GET", "/console/v1/operators")).status).toBe(200);
  });
});
