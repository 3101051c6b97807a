import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createConsoleClient, RampApiError } from "@ramp/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SANDBOX_ADMIN_EMAIL,
  SANDBOX_CONSOLE_PASSWORD,
  SANDBOX_OWNER_EMAIL,
  seedConsolePeople,
} from "../../../scripts/launcher/console-people.ts";
import {
  ADMIN_TOKEN,
  type ConsoleGateway,
  consoleCall,
  signIn,
  startConsoleGateway,
} from "./console-support.ts";

let gw: ConsoleGateway;
let server: ReturnType<typeof serve>;
let base: string;

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_seed" });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: gw.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await gw?.stop();
});

describe("the sandbox's console people (npm start's seed step)", () => {
  it("creates an admin and an owner of the sandbox business once; a second start changes nothing", async () => {
    const businessId = (await gw.keys.createBusiness("Sandbox Business")).id;
    const first = await seedConsolePeople(base, ADMIN_TOKEN, businessId);
    expect(first.map((p) => p.role)).toEqual(["admin", "owner"]);
    const again = await seedConsolePeople(base, ADMIN_TOKEN, businessId);
    expect(again).toEqual(first);
    expect(await gw.db.collection("people").countDocuments()).toBe(2);

    const owner = await signIn(gw.app, SANDBOX_OWNER_EMAIL, SANDBOX_CONSOLE_PASSWORD);
    expect(owner.body.user).toMatchObject({ kind: "member", role: "owner", businessId });
    const admin = await signIn(gw.app, first[0]?.email ?? "", SANDBOX_CONSOLE_PASSWORD);
    expect((await consoleCall(gw.app, admin.browser, "GET", "/console/v1/operators")).status).toBe(200);
  });
});

describe("a start whose sandbox admin is locked out", () => {
  it("still starts, and says the owner was not checked", async () => {
    const businessId = (await gw.keys.createBusiness("Locked Sandbox")).id;
    await seedConsolePeople(base, ADMIN_TOKEN, businessId);
    try {
      // Someone guessed at the admin's password: the email is locked out for a while.
      for (let i = 0; i < 5; i++) await signIn(gw.app, SANDBOX_ADMIN_EMAIL, "not the password at all");
      expect((await signIn(gw.app, SANDBOX_ADMIN_EMAIL, SANDBOX_CONSOLE_PASSWORD)).res.status).toBe(429);
      const warnings: string[] = [];
      const people = await seedConsolePeople(base, ADMIN_TOKEN, businessId, undefined, (w) =>
        warnings.push(w),
      );
      expect(people.map((p) => p.email)).toEqual([SANDBOX_ADMIN_EMAIL, SANDBOX_OWNER_EMAIL]);
      expect(warnings).toEqual([
        expect.stringMatching(/admin@sandbox\.local is locked out .*owner was not checked/),
      ]);
    } finally {
      await gw.db.collection("sign_in_failures").deleteMany({});
    }
  });
});

describe("the SDK's console client, against the gateway over HTTP", () => {
  it("signs in, keeps the cookie and CSRF token, writes, reads the audit, and signs out", async () => {
    const client = createConsoleClient({ baseUrl: base });
    const { user } = await client.signIn({ email: SANDBOX_ADMIN_EMAIL, password: SANDBOX_CONSOLE_PASSWORD });
    expect(user.role).toBe("admin");
    expect((await client.me()).user.id).toBe(user.id);
    const created = await client.operators.create({
      email: "sdk@ops.example",
      password: "a long enough password",
      role: "viewer",
    });
    expect(created).toMatchObject({ email: "sdk@ops.example", role: "viewer" });
    const audit = await client.audit.list({ action: "consoleOperatorCreate", limit: 5 });
    expect(audit.data[0]?.target).toBe(`operator:${created.id}`);
    expect((await client.audit.export({ action: "consoleOperatorCreate" })).split("\r\n")[0]).toMatch(
      /^id,at,/,
    );
    await client.signOut();
    const after = await client.me().catch((e: unknown) => e);
    expect(after).toBeInstanceOf(RampApiError);
    expect((after as RampApiError).statusCode).toBe(401);
  });
});
