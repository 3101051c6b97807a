import {
  BankAccountDto,
  BankDto,
  Consumers,
  DepositObserved,
  Events,
  isChainAddress,
  Rpc,
} from "@ramp/contracts";
import { callRpc, ensureStreams, publish } from "@ramp/runtime";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { SOL_USDC } from "./support/tokens.ts";

let stack: Stack;
let a: { apiKey: string };
let b: { apiKey: string };
beforeAll(async () => {
  stack = await startStack();
  a = await stack.createBusiness("Bank A");
  b = await stack.createBusiness("Bank B");
});
afterAll(async () => stack?.close());

describe("banks", () => {
  it("filters by exact code, name and country substrings, case-insensitively", async () => {
    const all = await stack.client(a.apiKey).get("/pub/v2/bank");
    expect(all.status).toBe(200);
    expect(all.body.length).toBeGreaterThan(100);
    for (const bank of all.body) BankDto.parse(bank);
    const gtb = await stack.client(a.apiKey).get("/pub/v2/bank?code=000013");
    expect(gtb.body).toHaveLength(1);
    expect(gtb.body[0].name).toMatch(/Guaranty/);
    expect((await stack.client(a.apiKey).get("/pub/v2/bank?code=00001")).body).toEqual([]);
    const ke = await stack.client(a.apiKey).get("/pub/v2/bank?country=ke&name=EQUITY");
    expect(ke.body.length).toBeGreaterThan(0);
    expect(ke.body.every((x: BankDto) => x.country === "KE" && /equity/i.test(x.name))).toBe(true);
  });

  it("serves the public list without a key, and requires the key on v2", async () => {
    const pub = await stack.request("GET", "/pub/bank?name=access");
    expect(pub.status).toBe(200);
    expect(pub.body.some((x: BankDto) => x.code === "000014")).toBe(true);
    expect((await stack.request("GET", "/pub/v2/bank")).status).toBe(401);
  });
});

describe("bank accounts", () => {
  it("registers with the bank's name and a Solana address; idempotent across businesses", async () => {
    const first = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000013", accountNumber: "0123456789" });
    expect(first.status).toBe(201);
    const acct = BankAccountDto.parse(first.body);
    expect(acct.bank).toMatch(/Guaranty/);
    expect(acct.accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
    expect(isChainAddress("SOLANA", acct.address)).toBe(true);
    const again = await stack
      .client(b.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000013", accountNumber: "0123456789" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const same = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000013", accountNumber: "0123456789" });
    expect(same.body).toEqual(first.body);
  });

  it("the same number at another bank is another record with another address", async () => {
    const x = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000014", accountNumber: "0123456789" });
    const y = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000013", accountNumber: "0123456789" });
    expect(x.body.id).not.toBe(y.body.id);
    expect(x.body.address).not.toBe(y.body.address);
  });

  it("400 for an unknown bank code, an unconfirmable number, or an unknown property", async () => {
    const unknown = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "123456", accountNumber: "0123456789" });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      statusCode: 400,
      message: "Bank with code 123456 not found",
      error: "Bad Request",
    });
    const bad = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000013", accountNumber: "9990000001" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Account could not be resolved");
    const extra = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000013", accountNumber: "0123456789", x: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toEqual(["property x should not exist"]);
  });

  it("looks up by address or number, only for businesses that registered it", async () => {
    const c = await stack.createBusiness("Bank C");
    const reg = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000016", accountNumber: "1111111111" });
    const byAddress = await stack.client(a.apiKey).get(`/pub/v2/bank-account?address=${reg.body.address}`);
    expect(byAddress.status).toBe(200);
    expect(byAddress.body).toEqual(reg.body);
    const byNumber = await stack.client(a.apiKey).get("/pub/v2/bank-account?accountNumber=1111111111");
    expect(byNumber.body).toEqual(reg.body);
    expect((await stack.client(c.apiKey).get("/pub/v2/bank-account?accountNumber=1111111111")).status).toBe(
      404,
    );
    expect((await stack.client(a.apiKey).get("/pub/v2/bank-account?accountNumber=2222222222")).status).toBe(
      404,
    );
    const neither = await stack.client(a.apiKey).get("/pub/v2/bank-account");
    expect(neither.status).toBe(400);
  });
});

describe("USDC landing on a bank account's address", () => {
  it("is paid out to that account as a COMPLETED OFF_RAMP order of the first registrant", async () => {
    await stack.setRate("NGN", 1650, 1600);
    const reg = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000017", accountNumber: "3333333333" });
    // One record across the service (docs/integrator-guide.md): a second registrant gets the same address.
    const second = await stack
      .client(b.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000017", accountNumber: "3333333333" });
    expect(second.body).toEqual(reg.body);
    // Through chain-watcher's observation path, as the Solana watcher would report it.
    const nc = await stack.connectAs("orders");
    await callRpc(nc, Rpc.sandboxChainDeposit, {
      chain: "SOLANA",
      address: reg.body.address,
      mint: SOL_USDC,
      amount: "25",
    });
    await nc.close();
    const orders = (await stack.db("orders")).collection("orders");
    const order = await eventually(
      async () => (await orders.findOne({ address: reg.body.address })) ?? undefined,
    );
    const done = await eventually(async () => {
      const r = await stack.client(a.apiKey).get(`/pub/v2/transaction/${order._id.toHexString()}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });
    expect(done).toMatchObject({
      transactionType: "OFF_RAMP",
      chain: "SOLANA",
      amount: 25,
      fiatAmount: 40000,
      accountNumber: "3333333333",
      currency: "NGN",
    });
    expect((await stack.client(b.apiKey).get(`/pub/v2/transaction/${done.id}`)).status).toBe(404);
  });

  /** Registers an account and sends it `amount` USDC through chain-watcher's observation path. */
  async function depositToNewAccount(accountNumber: string, amount: string) {
    const reg = await stack
      .client(a.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000017", accountNumber });
    const nc = await stack.connectAs("orders");
    const { reference } = await callRpc(nc, Rpc.sandboxChainDeposit, {
      chain: "SOLANA",
      address: reg.body.address,
      mint: SOL_USDC,
      amount,
    });
    await nc.close();
    return { address: reg.body.address as string, reference };
  }
  const completed = (id: string) =>
    eventually(async () => {
      const r = await stack.client(a.apiKey).get(`/pub/v2/transaction/${id}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });

  it("is paid out while chain-watcher is down: the event carries what orders needs of the token", async () => {
    await stack.setRate("NGN", 1650, 1600);
    // Orders is away while the deposit is observed, and chain-watcher is gone before orders handles it.
    await stack.stop("orders");
    let address: string;
    try {
      ({ address } = await depositToNewAccount("4444444444", "10"));
      await stack.stop("chain-watcher");
      await stack.start("orders");
      const orders = (await stack.db("orders")).collection("orders");
      const order = await eventually(async () => (await orders.findOne({ address })) ?? undefined);
      const done = await completed(order._id.toHexString());
      expect(done).toMatchObject({ transactionType: "OFF_RAMP", amount: 10, fiatAmount: 16000 });
    } finally {
      await stack.start("orders");
      await stack.start("chain-watcher");
    }
  });

  it("a redelivered deposit event opens no second order and credits nothing twice", async () => {
    await stack.setRate("NGN", 1650, 1600);
    const { address, reference } = await depositToNewAccount("6666666666", "7");
    const orders = (await stack.db("orders")).collection("orders");
    const order = await eventually(async () => (await orders.findOne({ address })) ?? undefined);
    await completed(order._id.toHexString());
    // The same event again under another message id, as a republish after a lost acknowledgement would.
    const stored = await (await stack.db("chain-watcher"))
      .collection("deposits")
      .findOne({ txId: reference });
    const ev = DepositObserved.parse(stored);
    const nc = await stack.connectAs("chain-watcher");
    const { js } = await ensureStreams(nc);
    const { duplicate } = await publish(js, Events.depositObserved, ev, `again:${reference}`);
    await nc.close();
    expect(duplicate).toBe(false);
    // Orders has handled it once its consumer has nothing pending or unacknowledged.
    const ordersNc = await stack.connectAs("orders");
    const { jsm } = await ensureStreams(ordersNc);
    const { contract, durable } = Consumers.ordersChainDeposits;
    await eventually(async () => {
      const info = await jsm.consumers.info(contract.stream, durable);
      return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
    });
    await ordersNc.close();
    expect(await orders.countDocuments({ address })).toBe(1);
    expect(await stack.fundsRecorded(order._id.toHexString())).toBe(1);
  });
});
