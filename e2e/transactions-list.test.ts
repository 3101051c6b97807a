import { TRANSACTION_FIELDS, type TransactionDto } from "@ramp/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

/**
 * `GET /pub/v2/transactions` and its CSV export: the caller's orders only, newest first, filtered, paged
 * by an opaque cursor that neither repeats nor skips an order while new ones arrive.
 */
let stack: Stack;
let biz: { apiKey: string };
let other: { apiKey: string };
const created: TransactionDto[] = [];

const api = () => stack.client(biz.apiKey);
const onramp = { currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT };
const offramp = {
  accountNumber: "0123456789",
  bankCode: "000013",
  currency: "NGN",
  mint: BASE_USDC,
  chain: "BASE",
};

async function create(path: "/pub/v2/onramp" | "/pub/v2/offramp", body: Record<string, unknown>) {
  const res = await api().post(path, body);
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as TransactionDto;
}

const newestFirst = (a: TransactionDto, b: TransactionDto) =>
  b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);

async function listAll(query: string, limit = 100): Promise<TransactionDto[]> {
  const out: TransactionDto[] = [];
  let cursor = "";
  do {
    const res = await api().get(
      `/pub/v2/transactions?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  await stack.setRate("GHS", 15, 14);
  biz = await stack.createBusiness("Lister");
  other = await stack.createBusiness("Someone Else");
  // Commas and quotes need CSV quoting; a line break cannot come in (control characters are refused:
  // csv.test.ts covers quoting one).
  created.push(await create("/pub/v2/onramp", { ...onramp, amount: 5, userExternalId: 'cust,"7"; line 2' }));
  created.push(await create("/pub/v2/offramp", { ...offramp, amount: 6 }));
  created.push(
    await create("/pub/v2/onramp", { ...onramp, currency: "GHS", chain: "BASE", mint: BASE_USDC, amount: 7 }),
  );
  created.push(await create("/pub/v2/offramp", { ...offramp, currency: "GHS", amount: 8 }));
  created.push(await create("/pub/v2/onramp", { ...onramp, amount: 9 }));
  // The other business's order must never show up in this business's list.
  const foreign = await stack.client(other.apiKey).post("/pub/v2/onramp", { ...onramp, amount: 11 });
  expect(foreign.status).toBe(201);
  // One order paid and delivered, for the status filter.
  await api().post(`/sandbox/v2/onramp/${created[4]?.id}/fiat-deposit`, {});
  await eventually(async () => {
    const r = await api().get(`/pub/v2/transaction/${created[4]?.id}`);
    return r.body.status === "COMPLETED" ? true : undefined;
  });
});
afterAll(async () => stack?.close());

describe("GET /pub/v2/transactions", () => {
  it("lists the caller's orders only, newest first, each as GET /transaction/{id} shows it", async () => {
    const res = await api().get("/pub/v2/transactions");
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBe("");
    const ids = res.body.data.map((t: TransactionDto) => t.id);
    expect(ids).toEqual([...created].sort(newestFirst).map((t) => t.id));
    const one = await api().get(`/pub/v2/transaction/${created[0]?.id}`);
    expect(res.body.data.find((t: TransactionDto) => t.id === created[0]?.id)).toEqual(one.body);
    expect(one.body.userExternalId).toBe('cust,"7"; line 2');
    expect(res.body.data.find((t: TransactionDto) => t.id === created[1]?.id).userExternalId).toBe("");
    const theirs = await stack.client(other.apiKey).get("/pub/v2/transactions");
    expect(theirs.body.data).toHaveLength(1);
    expect(theirs.body.data[0].amount).toBe(11);
  });

  it("filters by type, status, chain and currency, and by createdAt from (inclusive) to (exclusive)", async () => {
    const ids = async (q: string) => (await listAll(q)).map((t) => t.id).sort();
    const expected = (pred: (t: TransactionDto) => boolean) =>
      created
        .filter(pred)
        .map((t) => t.id)
        .sort();
    expect(await ids("&type=OFF_RAMP")).toEqual(expected((t) => t.transactionType === "OFF_RAMP"));
    expect(await ids("&status=COMPLETED")).toEqual([created[4]?.id]);
    expect(await ids("&status=INIT&type=ON_RAMP")).toEqual([created[0]?.id, created[2]?.id].sort());
    expect(await ids("&chain=BASE")).toEqual(expected((t) => t.chain === "BASE"));
    expect(await ids("&currency=GHS&chain=BASE&type=ON_RAMP")).toEqual([created[2]?.id]);
    const pivot = created[2]!.createdAt;
    expect(await ids(`&from=${pivot}`)).toEqual(expected((t) => t.createdAt >= pivot));
    expect(await ids(`&to=${pivot}`)).toEqual(expected((t) => t.createdAt < pivot));
    expect(await ids(`&from=${pivot}&to=${pivot}`)).toEqual([]);
  });

  it("limit is 1–100; a bad filter is 400 with one message per field; a garbled cursor is 400", async () => {
    for (const limit of ["0", "101", "abc", "2.5"]) {
      const res = await api().get(`/pub/v2/transactions?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(Array.isArray(res.body.message)).toBe(true);
    }
    const one = await api().get("/pub/v2/transactions?limit=1");
    expect(one.body.data).toHaveLength(1);
    expect(one.body.nextCursor).not.toBe("");
    expect((await api().get("/pub/v2/transactions?limit=100")).status).toBe(200);

    const bad = await api().get("/pub/v2/transactions?type=SWAP&from=yesterday&foo=1");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    expect(bad.body.message).toEqual(
      expect.arrayContaining([
        "type must be one of the following values: ON_RAMP, OFF_RAMP",
        "from must be an ISO 8601 date-time",
        "property foo should not exist",
      ]),
    );
    for (const cursor of ["garbage", "bm90LWEtY3Vyc29y", `${one.body.nextCursor}AAAA`]) {
      const res = await api().get(`/pub/v2/transactions?cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body.message).toBe("Invalid cursor");
    }
  });

  it("pages never repeat or skip an order while new ones are being created", async () => {
    const before = await listAll("");
    for (let i = 0; i < 15; i++)
      before.unshift(await create("/pub/v2/offramp", { ...offramp, amount: 1 + i }));
    let creating = true;
    const arrivals = (async () => {
      const made: TransactionDto[] = [];
      while (creating && made.length < 30)
        made.push(await create("/pub/v2/offramp", { ...offramp, amount: 2 }));
      return made;
    })();
    const seen: TransactionDto[] = [];
    let cursor = "";
    do {
      const res = await api().get(`/pub/v2/transactions?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.data);
      cursor = res.body.nextCursor;
      // Give the creator a turn between pages, so orders really arrive while paging.
      await new Promise((r) => setTimeout(r, 20));
    } while (cursor);
    creating = false;
    const arrived = await arrivals;
    expect(arrived.length).toBeGreaterThan(0);

    const seenIds = seen.map((t) => t.id);
    expect(new Set(seenIds).size).toBe(seenIds.length); // nothing repeated
    const existing = before.map((t) => t.id);
    expect(seenIds.filter((id) => existing.includes(id)).sort()).toEqual([...existing].sort()); // nothing skipped
    expect(seen).toEqual([...seen].sort(newestFirst)); // one order across pages
    const fresh = new Set(arrived.map((t) => t.id));
    expect(seenIds.every((id) => existing.includes(id) || fresh.has(id))).toBe(true);
  });

  it("answers 20 orders when no limit is given", async () => {
    const res = await api().get("/pub/v2/transactions");
    expect(res.body.data).toHaveLength(20);
    expect(res.body.nextCursor).not.toBe("");
  });
});

/** Splits RFC 4180 text into records of fields (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1];
    i += 1;
    if (quoted && ch === '"' && next === '"') {
      field += '"';
      i += 1;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (quoted) {
      field += ch;
    } else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\r" && next === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i += 1;
    } else {
      field += ch;
    }
  }
  return rows;
}

describe("GET /pub/v2/transactions/export", () => {
  it("streams a header row and one RFC 4180 row per order, in list order, numbers as in JSON", async () => {
    const res = await fetch(`${stack.url}/pub/v2/transactions/export?type=ON_RAMP`, {
      headers: { "x-api-key": biz.apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const text = await res.text();
    expect(text.endsWith("\r\n")).toBe(true);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual([...TRANSACTION_FIELDS]);
    expect(header?.slice(-2)).toEqual(["chain", "userExternalId"]);
    const listed = await listAll("&type=ON_RAMP");
    expect(rows.map((r) => r[0])).toEqual(listed.map((t) => t.id));
    const first = rows.find((r) => r[0] === created[0]?.id)!;
    expect(first[col("userExternalId")]).toBe('cust,"7"; line 2');
    expect(text).toContain('"cust,""7""; line 2"\r\n');
    for (const r of rows) {
      const tx = listed.find((t) => t.id === r[0])!;
      for (const f of TRANSACTION_FIELDS) expect(r[col(f)], f).toBe(String(tx[f]));
    }
  });

  it("applies the same filters, rejects list-only and bad parameters with 400, and shows only the caller's orders", async () => {
    const csv = async (key: string, q: string) => {
      const res = await fetch(`${stack.url}/pub/v2/transactions/export${q}`, {
        headers: { "x-api-key": key },
      });
      return { status: res.status, text: await res.text() };
    };
    const completed = await csv(biz.apiKey, "?status=COMPLETED");
    expect(
      parseCsv(completed.text)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual([created[4]?.id]);
    const none = await csv(biz.apiKey, "?currency=ZAR");
    expect(parseCsv(none.text)).toHaveLength(1);
    const theirs = await csv(other.apiKey, "");
    expect(
      parseCsv(theirs.text)
        .slice(1)
        .map((r) => r[col("amount")]),
    ).toEqual(["11"]);
    for (const q of ["?limit=5", "?cursor=abc", "?chain=MARS"]) {
      const res = await csv(biz.apiKey, q);
      expect(res.status, q).toBe(400);
      expect(Array.isArray(JSON.parse(res.text).message)).toBe(true);
    }
  });
});

const col = (name: string) => TRANSACTION_FIELDS.indexOf(name as (typeof TRANSACTION_FIELDS)[number]);
