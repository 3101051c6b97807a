/**
 * Is a conditional update atomic on the local database, and can two updates of one document lose each
 * other? The answer is why order transitions also claim each exit with a unique insert (docs/architecture.md,
 * "Persistence and the outbox"). Against MONGODB_URI when set, else against FerretDB on each backend
 * RAMP_LOCAL_DB can choose (SQLite, then a private PostgreSQL). Prints counts; asserts nothing.
 *
 *   npm run bench:conditional-updates
 *   BENCH_RACE_ROUNDS=50 BENCH_RACERS=20 npm run bench:conditional-updates
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ensureFerretDb,
  ensurePostgres,
  startFerret,
  startFerretOnPostgres,
  TOOLS_DIR,
} from "@ramp/devinfra";
import { type Collection, MongoClient, ObjectId } from "mongodb";
import { envNumber } from "./support/report.ts";

const ROUNDS = envNumber("BENCH_RACE_ROUNDS", 20);
const RACERS = envNumber("BENCH_RACERS", 20);

interface Doc {
  _id: ObjectId;
  status: string;
  winner?: number;
  items?: string[];
  n?: number;
}

/** Every racer runs `findOneAndUpdate({_id, status: "A"}, …)` at once; an atomic one lets exactly one win. */
async function conditionalWinners(col: Collection<Doc>): Promise<number[]> {
  const winners: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const _id = new ObjectId();
    await col.insertOne({ _id, status: "A" });
    const results = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        col.findOneAndUpdate({ _id, status: "A" }, { $set: { status: "B", winner: i } }),
      ),
    );
    winners.push(results.filter((r) => r !== null).length);
  }
  return winners;
}

/** `$set` of one field and `$pull` from another, at once on one document: both must show afterwards. */
async function lostSetOrPull(col: Collection<Doc>): Promise<{ lostSet: number; lostPull: number }> {
  let lostSet = 0;
  let lostPull = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const _id = new ObjectId();
    await col.insertOne({ _id, status: "A", items: ["x", "y"] });
    await Promise.all([
      col.updateOne({ _id }, { $set: { status: "B" } }),
      col.updateOne({ _id }, { $pull: { items: "x" } }),
    ]);
    const after = await col.findOne({ _id });
    if (after?.status !== "B") lostSet++;
    if (after?.items?.includes("x")) lostPull++;
  }
  return { lostSet, lostPull };
}

/** RACERS concurrent `$inc: 1` on one counter; what is missing at the end was lost. */
async function lostIncrements(col: Collection<Doc>): Promise<number> {
  let lost = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const _id = new ObjectId();
    await col.insertOne({ _id, status: "A", n: 0 });
    await Promise.all(Array.from({ length: RACERS }, () => col.updateOne({ _id }, { $inc: { n: 1 } })));
    lost += RACERS - ((await col.findOne({ _id }))?.n ?? 0);
  }
  return lost;
}

async function probe(label: string, url: string) {
  const client = await MongoClient.connect(url);
  try {
    const col = client.db(`probe_${Date.now()}`).collection<Doc>("docs");
    const winners = await conditionalWinners(col);
    const over = winners.filter((w) => w > 1);
    const lost = await lostSetOrPull(col);
    const lostInc = await lostIncrements(col);
    process.stdout.write(
      [
        `${label}:`,
        `  findOneAndUpdate({_id, status: "A"}) × ${RACERS} racers, ${ROUNDS} rounds: winners per round ${winners.join(" ")}`,
        `    rounds with more than one winner: ${over.length}/${ROUNDS}${over.length ? ` (at most ${Math.max(...over)})` : ""}`,
        `  $set status ‖ $pull items, ${ROUNDS} rounds: $set lost ${lost.lostSet}, $pull lost ${lost.lostPull}`,
        `  $inc ×${RACERS} on one counter, ${ROUNDS} rounds: ${lostInc} of ${RACERS * ROUNDS} increments lost`,
        "",
      ].join("\n"),
    );
  } finally {
    await client.close();
  }
}

if (process.env.MONGODB_URI) {
  await probe("MONGODB_URI", process.env.MONGODB_URI);
} else {
  const ferretdb = ensureFerretDb(TOOLS_DIR);
  const backends = {
    "FerretDB (sqlite)": (dir: string) => startFerret(ferretdb, dir),
    "FerretDB (postgresql)": (dir: string) => startFerretOnPostgres(ferretdb, ensurePostgres(), dir),
  };
  for (const [label, start] of Object.entries(backends)) {
    const dir = mkdtempSync(join(tmpdir(), "ramp-probe-"));
    const db = await start(dir);
    try {
      await probe(label, db.url);
    } finally {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
