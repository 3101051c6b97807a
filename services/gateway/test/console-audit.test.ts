import { AUDIT_CSV_FIELDS, type AuditEntryDto } from "@ramp/contracts";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAuditLog } from "../src/audit/audit-log.ts";
import { totpCode } from "../src/people/totp.ts";
import {
  type Browser,
  type ConsoleGateway,
  consoleCall,
  createOperator,
  signIn,
  startConsoleGateway,
} from "./console-support.ts";

const PASSWORD = "a long enough password";
let gw: ConsoleGateway;
let admin: Browser;
let businessA: string;
let businessB: string;

const auditCount = () => gw.db.collection("audit").countDocuments();
const page = async (b: Browser, query = "") => {
  const res = await consoleCall(gw.app, b, "GET", `/console/v1/audit${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { data: AuditEntryDto[]; nextCursor: string };
};

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_audit" });
  businessA = (await gw.keys.createBusiness("A")).id;
  businessB = (await gw.keys.createBusiness("B")).id;
  expect((await createOperator(gw.app, "root@ops.example", PASSWORD, "admin")).res.status).toBe(201);
  admin = (await signIn(gw.app, "root@ops.example", PASSWORD)).browser;
});
afterAll(async () => gw?.stop());

describe("one audit entry per write", () => {
  it("each successful write adds exactly one entry; a refused or failed one adds none", async () => {
    const addOwnerOfA = () =>
      consoleCall(gw.app, admin, "POST", "/console/v1/members", {
        email: "owner@a.example",
        password: PASSWORD,
        role: "owner",
        businessId: businessA,
      });
    const writes: Array<{ run: () => Response | Promise<Response>; status: number }> = [
      { run: addOwnerOfA, status: 201 },
      // The same email again: 409, nothing changed, nothing recorded.
      { run: addOwnerOfA, status: 409 },
      { run: () => consoleCall(gw.app, admin, "POST", "/console/v1/members", { email: "bad" }), status: 400 },
      {
        run: () => consoleCall(gw.app, admin, "DELETE", `/console/v1/operators/${"e".repeat(24)}`),
        status: 404,
      },
      {
        run: () =>
          consoleCall(
            gw.app,
            admin,
            "POST",
            "/console/v1/operators",
            { email: "x@ops.example", password: PASSWORD, role: "viewer" },
            { csrf: "wrong" },
          ),
        status: 403,
      },
      {
        run: () =>
          consoleCall(gw.app, admin, "POST", "/console/v1/operators", {
            email: "x@ops.example",
            password: PASSWORD,
            role: "viewer",
          }),
        status: 201,
      },
      {
        run: async () => (await createOperator(gw.app, "y@ops.example", PASSWORD, "operator")).res,
        status: 201,
      },
      { run: async () => (await signIn(gw.app, "x@ops.example", PASSWORD)).res, status: 200 },
      { run: async () => (await signIn(gw.app, "x@ops.example", "the wrong one!")).res, status: 401 },
    ];
    for (const [i, w] of writes.entries()) {
      const before = await auditCount();
      const res = await w.run();
      expect(res.status, `write ${i}`).toBe(w.status);
      expect(await auditCount(), `write ${i}`).toBe(before + (res.status < 400 ? 1 : 0));
    }
  });

  it("an entry names the actor, the action (operationId), the target, what changed and the request id — never a password", async () => {
    const res = await consoleCall(gw.app, admin, "POST", "/console/v1/operators", {
      email: "z@ops.example",
      password: PASSWORD,
      role: "operator",
    });
    const { id } = (await res.json()) as { id: string };
    const [entry] = (await page(admin, "?limit=1")).data;
    expect(entry).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      at: expect.stringMatching(/Z$/),
      actor: { kind: "operator", id: expect.any(String), email: "root@ops.example" },
      action: "consoleOperatorCreate",
      target: `operator:${id}`,
      after: { email: "z@ops.example", role: "operator" },
      requestId: res.headers.get("x-request-id"),
    });
    const all = await gw.db.collection("audit").find().toArray();
    expect(JSON.stringify(all)).not.toContain(PASSWORD);
    expect(JSON.stringify(all)).not.toContain("scrypt$");
  });

  it("a write with the admin token is recorded as the admin token's", async () => {
    await createOperator(gw.app, "by-token@ops.example", PASSWORD, "viewer");
    const [entry] = (await page(admin, "?actor=admin-token&limit=1")).data;
    expect(entry?.actor).toEqual({ kind: "admin-token" });
    expect(entry?.action).toBe("adminOperatorCreate");
    expect(entry?.after).toEqual({ email: "by-token@ops.example", role: "viewer" });
  });

  it("TOTP enrolment and sign-out are writes too", async () => {
    const me = (await signIn(gw.app, "y@ops.example", PASSWORD)).browser;
    const { secret } = (await (await consoleCall(gw.app, me, "POST", "/console/v1/me/totp")).json()) as {
      secret: string;
    };
    await consoleCall(gw.app, me, "POST", "/console/v1/me/totp/confirm", {
      code: totpCode(secret, gw.clock.now),
    });
    await consoleCall(gw.app, me, "DELETE", "/console/v1/session");
    const mine = await page(admin, "?actor=y@ops.example");
    expect(mine.data.map((e) => e.action)).toEqual([
      "consoleSignOut",
      "consoleTotpConfirm",
      "consoleTotpEnrol",
      "consoleSignIn",
    ]);
  });
});

describe("reading the log", () => {
  it("filters by actor, action and time, newest first, page by page", async () => {
    const creates = await page(admin, "?action=consoleOperatorCreate");
    expect(creates.data.length).toBeGreaterThanOrEqual(2);
    for (const e of creates.data) expect(e.action).toBe("consoleOperatorCreate");
    const at = creates.data.map((e) => e.at);
    expect(at).toEqual([...at].sort().reverse());

    const first = await page(admin, "?limit=2");
    const second = await page(admin, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.data.map((e) => e.id)).not.toContain(first.data[0]?.id);
    expect((second.data[0]?.id ?? "") < (first.data[1]?.id ?? "")).toBe(true);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await page(admin, `?from=${future}`)).data).toEqual([]);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect((await page(admin, `?to=${past}`)).data).toEqual([]);
    expect((await page(admin, `?from=${past}&to=${future}&limit=100`)).data.length).toBe(await auditCount());

    const bad = await consoleCall(gw.app, admin, "GET", "/console/v1/audit?from=yesterday&limit=500");
    expect(bad.status).toBe(400);
  });

  it("a member sees its business's entries only", async () => {
    await consoleCall(gw.app, admin, "POST", "/console/v1/members", {
      email: "owner@b.example",
      password: PASSWORD,
      role: "owner",
      businessId: businessB,
    });
    const owner = (await signIn(gw.app, "owner@a.example", PASSWORD)).browser;
    await consoleCall(gw.app, owner, "POST", "/console/v1/members", {
      email: "dev@a.example",
      password: PASSWORD,
      role: "developer",
    });
    const seen = (await page(owner, "?limit=100")).data;
    expect(seen.map((e) => e.action).sort()).toEqual([
      "consoleMemberCreate",
      "consoleMemberCreate",
      "consoleSignIn",
    ]);
    expect(JSON.stringify(seen)).not.toContain("owner@b.example");
    expect(JSON.stringify(seen)).not.toContain('ops.example","role');
  });

  it("exports as CSV with a header row", async () => {
    const res = await consoleCall(
      gw.app,
      admin,
      "GET",
      "/console/v1/audit/export?action=consoleMemberCreate",
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(AUDIT_CSV_FIELDS.join(","));
    expect(lines).toHaveLength(1 + 3);
    expect(lines[1]).toContain("consoleMemberCreate");
    expect(lines[1]).toContain('"{""email"":""dev@a.example""');
  });
});

describe("an audit entry the database will not take", () => {
  it("is tried again, then given up with an error for the caller to log", async () => {
    const client = await MongoClient.connect(inject("mongoUrl"));
    const log = createAuditLog(client.db(gw.db.databaseName));
    await client.close();
    const entry = {
      actor: { kind: "admin-token" as const },
      action: "test",
      target: "t",
      requestId: "r",
      businessId: null,
    };
    await expect(log.append(entry, { retries: 2, minTimeout: 5 })).rejects.toThrow();
    // And the same entry through a live connection is stored once.
    const before = await auditCount();
    await createAuditLog(gw.db).append(entry, { retries: 2, minTimeout: 5 });
    expect(await auditCount()).toBe(before + 1);
  });
});
