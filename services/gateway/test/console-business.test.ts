import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Browser,
  type ConsoleGateway,
  consoleCall,
  signedInPeople,
  startConsoleGateway,
} from "./console-support.ts";

/**
 * Who may reach a business's bank accounts and payments through the console. The stand-ins here
 * answer empty pages and refuse every bank; e2e registers real accounts and lists real payments.
 */
const PASSWORD = "a long enough password";
let gw: ConsoleGateway;
let ops: Browser;
let owner: Browser;
let viewer: Browser;
let businessA: string;
let businessB: string;

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_business" });
  businessA = (await gw.keys.createBusiness("A")).id;
  businessB = (await gw.keys.createBusiness("B")).id;
  let members: Record<string, Browser>;
  ({ ops, members } = await signedInPeople(gw.app, businessA, PASSWORD, ["owner", "viewer"]));
  ({ owner, viewer } = members as { owner: Browser; viewer: Browser });
});
afterAll(async () => gw?.stop());

const get = (who: Browser, path: string) => consoleCall(gw.app, who, "GET", path);
const message = async (res: Response) => ((await res.json()) as { message: unknown }).message;

describe("bank accounts and payments in the console", () => {
  for (const list of ["/console/v1/bank-accounts", "/console/v1/payments"]) {
    it(`${list}: a member lists its own business's; another business is 404; an operator names one`, async () => {
      const mine = await get(viewer, list);
      expect(mine.status).toBe(200);
      expect(await mine.json()).toEqual({ data: [], nextCursor: "" });
      expect((await get(owner, `${list}?businessId=${businessA}`)).status).toBe(200);
      expect((await get(owner, `${list}?businessId=${businessB}`)).status).toBe(404);
      const unnamed = await get(ops, list);
      expect(unnamed.status).toBe(400);
      expect(await message(unnamed)).toEqual(["businessId is required"]);
      expect((await get(ops, `${list}?businessId=${businessB}`)).status).toBe(200);
      expect((await get(ops, `${list}?businessId=${"0".repeat(24)}`)).status).toBe(404);
      expect((await get(ops, `${list}?businessId=${businessB}&limit=101`)).status).toBe(400);
    });
  }

  it("adding a bank account: a viewer is refused, bad input is a 400 naming the field, nothing is audited for a refusal", async () => {
    const add = (who: Browser, body: unknown, opts?: { csrf: null }) =>
      consoleCall(gw.app, who, "POST", "/console/v1/bank-accounts", body, opts);
    const account = { bankCode: "000013", accountNumber: "0123456789" };
    expect((await add(viewer, account)).status).toBe(403);
    expect((await add(owner, account, { csrf: null })).status).toBe(403);
    expect((await add(owner, { ...account, businessId: businessB })).status).toBe(404);
    const empty = await add(owner, { bankCode: "", accountNumber: "0123456789" });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(await message(empty))).toContain("bankCode");
    // Banking's refusal reaches the browser as its own message.
    const refused = await add(owner, account);
    expect(refused.status).toBe(400);
    expect(await message(refused)).toBe("Bank with code 000013 not found");
    const audit = await get(ops, "/console/v1/audit?action=consoleBankAccountCreate");
    expect(((await audit.json()) as { data: unknown[] }).data).toEqual([]);
  });
});
