import { describe, expect, it } from "vitest";
import { byCount, groupedWrites } from "./grouped-writes.ts";

/** A command sender whose answers the test releases by hand, recording what each command held. */
function heldSender(modifiedOf: (writes: string[]) => number | Error) {
  const commands: string[][] = [];
  const answers: (() => void)[] = [];
  const send = (writes: string[]) => {
    commands.push(writes);
    return new Promise<number>((resolve, reject) =>
      answers.push(() => {
        const m = modifiedOf(writes);
        if (m instanceof Error) reject(m);
        else resolve(m);
      }),
    ).then((m) => byCount(m, writes.length));
  };
  const answerNext = async () => {
    answers.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { commands, send, answerNext };
}

describe("grouped writes", () => {
  it("sends a lone write at once, and the writes that came meanwhile together in the next command", async () => {
    const s = heldSender((w) => w.length);
    const g = groupedWrites(s.send);
    const first = g.run("a");
    expect(s.commands).toEqual([["a"]]);
    const later = ["b", "c", "d"].map((w) => g.run(w));
    expect(s.commands).toHaveLength(1);
    await s.answerNext();
    expect(await first).toBe("modified");
    expect(s.commands).toEqual([["a"], ["b", "c", "d"]]);
    await s.answerNext();
    expect(await Promise.all(later)).toEqual(["modified", "modified", "modified"]);
  });

  it("tells a lone write that changed nothing so, and a group with a miss that its outcome is unknown", async () => {
    const s = heldSender((w) => (w.includes("miss") ? w.length - 1 : w.length));
    const g = groupedWrites(s.send);
    const lone = g.run("miss");
    const grouped = [g.run("x"), g.run("miss")];
    await s.answerNext();
    expect(await lone).toBe("unmodified");
    await s.answerNext();
    expect(await Promise.all(grouped)).toEqual(["unknown", "unknown"]);
  });

  it("answers unknown to every write of a command that failed, and keeps sending after it", async () => {
    let fail = true;
    const s = heldSender((w) => (fail ? new Error("connection reset") : w.length));
    const g = groupedWrites(s.send);
    const failed = g.run("a");
    await s.answerNext();
    expect(await failed).toBe("unknown");
    fail = false;
    const next = g.run("b");
    await s.answerNext();
    expect(await next).toBe("modified");
  });

  it("bounds one command at maxGroup writes", async () => {
    const s = heldSender((w) => w.length);
    const g = groupedWrites(s.send, 2);
    const all = ["a", "b", "c", "d", "e"].map((w) => g.run(w));
    for (let i = 0; i < 3; i++) await s.answerNext();
    await Promise.all(all);
    expect(s.commands).toEqual([["a"], ["b", "c"], ["d", "e"]]);
  });
});
