import { insertGrouped, UPDATE_GROUP_MAX, updateGrouped } from "@ramp/runtime";
import { type Collection, type CommandStartedEvent, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

interface Doc {
  _id: string;
  n: number;
}

let mongo: MongoClient;
let col: Collection<Doc>;
const commands: string[] = [];

beforeAll(async () => {
  // What the driver sends is counted, so the test sees how many commands the writes took.
  mongo = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
  mongo.on("commandStarted", (e: CommandStartedEvent) => commands.push(e.commandName));
  col = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_grouped`).collection<Doc>("docs");
  await col.insertOne({ _id: "there-already", n: 0 });
});
afterAll(async () => {
  await mongo?.close();
});

const sent = async <T>(run: () => Promise<T>) => {
  commands.length = 0;
  const result = await run();
  return { result, commands: [...commands] };
};

describe("writes of many documents ready at once go in one command (group commit)", () => {
  it("inserts: each learns whether it inserted or found its id taken, in two commands for twenty", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => (i === 7 ? "there-already" : `new-${i}`));
    const { result, commands: cmds } = await sent(() =>
      Promise.all(ids.map((_id, n) => insertGrouped(col, { _id, n }))),
    );
    expect(result).toEqual(ids.map((id) => id !== "there-already"));
    // The first goes alone at once; the nineteen that came while it was on its way go together.
    expect(cmds).toEqual(["insert", "insert"]);
    expect(await col.countDocuments({ _id: { $regex: /^new-/ } })).toBe(19);
    expect((await col.findOne({ _id: "there-already" }))?.n).toBe(0);
  });

  it("the same id twice among writes sent together: one inserts, the other is told it was there", async () => {
    const both = await Promise.all([
      insertGrouped(col, { _id: "first", n: 1 }),
      insertGrouped(col, { _id: "twin", n: 1 }),
      insertGrouped(col, { _id: "twin", n: 2 }),
    ]);
    expect(both).toEqual([true, true, false]);
    expect((await col.findOne({ _id: "twin" }))?.n).toBe(1);
  });

  it("updates: every one applied, in commands of at most eight; one that matches nothing is told so", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `new-${i === 7 ? 0 : i}`);
    const { result, commands: cmds } = await sent(() =>
      Promise.all(
        ids.map((_id, i) => updateGrouped(col, { filter: { _id }, update: { $set: { n: 100 + i } } })),
      ),
    );
    // The first alone at once, the nineteen that came meanwhile in commands of UPDATE_GROUP_MAX (8).
    expect(cmds).toEqual(["update", "update", "update", "update"]);
    expect(result.every((changed) => changed)).toBe(true);
    expect((await col.findOne({ _id: "new-19" }))?.n).toBe(119);
    expect(await updateGrouped(col, { filter: { _id: "nobody" }, update: { $set: { n: 1 } } })).toBe(false);
    // A command whose count falls short cannot say whose update missed: each of its updates is sent
    // again alone, so every one that can apply is applied, and one that matches nothing stays a no-op.
    const { result: mixed, commands: mixedCmds } = await sent(() =>
      Promise.all([
        updateGrouped(col, { filter: { _id: "new-1" }, update: { $set: { n: 1 } } }),
        updateGrouped(col, { filter: { _id: "new-2" }, update: { $set: { n: 2 } } }),
        updateGrouped(col, { filter: { _id: "nobody" }, update: { $set: { n: 3 } } }),
      ]),
    );
    expect(mixedCmds).toEqual(["update", "update", "update", "update"]);
    expect(mixed[0]).toBe(true);
    expect((await col.findOne({ _id: "new-2" }))?.n).toBe(2);
    expect(await col.countDocuments({ _id: "nobody" })).toBe(0);
  });

  it("upserts sent together: each one that inserted its document is told it changed it", async () => {
    const { result, commands: cmds } = await sent(() =>
      Promise.all(
        ["up-1", "up-2", "up-3"].map((_id) =>
          updateGrouped(col, { filter: { _id }, update: { $set: { n: 7 } }, upsert: true }),
        ),
      ),
    );
    expect(cmds).toEqual(["update", "update"]);
    expect(result).toEqual([true, true, true]);
    expect(await col.countDocuments({ _id: { $in: ["up-1", "up-2", "up-3"] }, n: 7 })).toBe(3);
  });

  it("two hundred updates ready at once all land (FerretDB holds a connection per statement of a command)", async () => {
    // On FerretDB 1.24 over PostgreSQL, one `update` command of as many statements as its connection
    // pool holds never finished, and every other command waited behind it.
    const ids = Array.from({ length: 200 }, (_, i) => `many-${i}`);
    await col.insertMany(ids.map((_id) => ({ _id, n: 0 })));
    const { result, commands: cmds } = await sent(() =>
      Promise.all(ids.map((_id) => updateGrouped(col, { filter: { _id }, update: { $set: { n: 1 } } }))),
    );
    expect(result.every((changed) => changed)).toBe(true);
    expect(cmds.length).toBe(1 + Math.ceil(199 / UPDATE_GROUP_MAX));
    expect(await col.countDocuments({ _id: { $in: ids }, n: 1 })).toBe(200);
  }, 60_000);
});
