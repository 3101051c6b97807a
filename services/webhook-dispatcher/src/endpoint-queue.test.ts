import { describe, expect, it } from "vitest";
import {
  admit,
  drain,
  finish,
  newQueueState,
  nextWake,
  type QueuedJob,
  type QueueLimits,
  queueLimit,
  type SentBack,
  TRIM_EVERY_MS,
  takeRunnable,
  tick,
  UNPROVEN_MAX_MS,
} from "./endpoint-queue.ts";

interface TestJob extends QueuedJob {
  name: string;
}

const job = (name: string, endpoint: string, laneId: string, sequence: number): TestJob => ({
  name,
  endpoint,
  laneId,
  d: { sequence },
  readyAt: 0,
  postedAt: null,
  postMs: null,
});

const names = (jobs: TestJob[]) => jobs.map((j) => j.name);

/** Runs `j` to an answer that took `postMs`, as deliver.ts records it. */
function answered(s: ReturnType<typeof newQueueState<TestJob>>, j: TestJob, postMs: number) {
  j.postMs = postMs;
  return finish(s, j, undefined, false);
}

describe("endpoint queue", () => {
  const limits: QueueLimits = { concurrency: 4, perEndpoint: 2 };

  it("runs at most perEndpoint to one endpoint and shares the slots round-robin", () => {
    const s = newQueueState<TestJob>(0);
    for (let i = 0; i < 4; i++) expect(admit(s, limits, job(`a${i}`, "A", `la${i}`, 1), 0)).toBeNull();
    expect(admit(s, limits, job("b0", "B", "lb", 1), 0)).toBeNull();
    // A gets its two slots, B its one; the fourth replica slot stays free rather than go to A.
    expect(names(takeRunnable(s, limits, 0))).toEqual(["a0", "b0", "a1"]);
    expect(s.active).toBe(3);
    expect(takeRunnable(s, limits, 0)).toEqual([]);
    expect(s.held).toBe(5);
  });

  it("never runs two jobs of one lane at once, and runs its lowest sequence first", () => {
    const s = newQueueState<TestJob>(0);
    admit(s, limits, job("third", "A", "lane", 3), 0);
    admit(s, limits, job("first", "A", "lane", 1), 0);
    admit(s, limits, job("second", "A", "lane", 2), 0);
    const [first, ...rest] = takeRunnable(s, limits, 0);
    expect(first?.name).toBe("first");
    expect(rest).toEqual([]);
    if (!first) throw new Error("nothing ran");
    expect(answered(s, first, 10)).toBe(false);
    expect(names(takeRunnable(s, limits, 0))).toEqual(["second"]);
  });

  it("keeps a retried job until its time and says when to wake for it", () => {
    const s = newQueueState<TestJob>(0);
    admit(s, limits, job("j", "A", "lane", 1), 0);
    const [j] = takeRunnable(s, limits, 1_000);
    if (!j) throw new Error("nothing ran");
    expect(finish(s, j, 6_000, false)).toBe(false);
    expect(takeRunnable(s, limits, 5_999)).toEqual([]);
    expect(nextWake(s, 5_999)).toBe(6_000);
    expect(names(takeRunnable(s, limits, 6_000))).toEqual(["j"]);
    expect(nextWake(s, 6_000)).toBeNull();
  });

  it("gives a retried job back to the stream while stopping, and forgets an idle endpoint", () => {
    const s = newQueueState<TestJob>(0);
    admit(s, limits, job("j", "A", "lane", 1), 0);
    const [j] = takeRunnable(s, limits, 0);
    if (!j) throw new Error("nothing ran");
    expect(finish(s, j, 10, true)).toBe(true);
    expect(s.held).toBe(0);
    expect(s.endpoints.size).toBe(0);
  });

  it("queues without bound until the endpoint has a pace, then sends the excess back to the stream", () => {
    const s = newQueueState<TestJob>(0);
    const one = { concurrency: 4, perEndpoint: 1 };
    for (let i = 0; i < 10; i++) expect(admit(s, one, job(`j${i}`, "A", `l${i}`, 1), 0)).toBeNull();
    const [j0] = takeRunnable(s, one, 0);
    if (!j0) throw new Error("nothing ran");
    // 400 ms a POST: one slot gets through 2 in the one-second horizon, so 2 may wait in memory.
    answered(s, j0, 400);
    const ep = s.endpoints.get("A");
    if (!ep) throw new Error("endpoint forgotten");
    expect(queueLimit(s, one, ep, 0)).toBe(2);
    const back = tick(s, one, TRIM_EVERY_MS);
    expect(names(back.map((b) => b.job))).toEqual(["j3", "j4", "j5", "j6", "j7", "j8", "j9"]);
    expect(ep.waiting).toHaveLength(2);
    expect(s.held).toBe(2);
    // Sent away for about as long as the two ahead of it take, at least the minimum.
    expect(back[0]?.delayMs).toBe(800);
    // A new job for the full queue goes straight back.
    expect(admit(s, one, job("late", "A", "late", 1), TRIM_EVERY_MS)?.delayMs).toBe(800);
  });

  it("caps how long an endpoint not proven slow sends its jobs away", () => {
    const s = newQueueState<TestJob>(0);
    const one = { concurrency: 4, perEndpoint: 1 };
    for (let i = 0; i < 4; i++) admit(s, one, job(`j${i}`, "A", `l${i}`, 1), 0);
    const [j0] = takeRunnable(s, one, 0);
    if (!j0) throw new Error("nothing ran");
    // Its first POST hangs: by 500 ms its pace leaves room for 2 waiting, so the third goes back for
    // about as long as the two ahead of it take.
    j0.postedAt = 0;
    const back: SentBack<TestJob>[] = [];
    for (let now = TRIM_EVERY_MS; now <= 3_000; now += TRIM_EVERY_MS) back.push(...tick(s, one, now));
    expect(back.map((b) => [b.job.name, b.delayMs])).toEqual([["j3", 1_000]]);
    // At 3 s that would be 6 s, but one hanging POST proves little: no longer than UNPROVEN_MAX_MS.
    expect(admit(s, one, job("early", "A", "early", 1), 3_000)?.delayMs).toBe(UNPROVEN_MAX_MS);
    // Once a round of its POSTs (one per slot) has answered that slowly, the wait is the pace's.
    answered(s, j0, 3_000);
    expect(admit(s, one, job("next", "A", "next", 1), 3_000)?.delayMs).toBe(6_000);
  });

  it("sends a lane's later statuses back with its earliest one sent back, so none overtakes it", () => {
    const s = newQueueState<TestJob>(0);
    const one = { concurrency: 4, perEndpoint: 1 };
    admit(s, one, job("run", "A", "other", 1), 0);
    admit(s, one, job("x1", "A", "x", 1), 0);
    admit(s, one, job("y1", "A", "y", 1), 0);
    admit(s, one, job("x2", "A", "x", 2), 0);
    admit(s, one, job("y0", "A", "y", 0), 0);
    const [r] = takeRunnable(s, one, 0);
    if (!r) throw new Error("nothing ran");
    answered(s, r, 500);
    // Limit 2 (500 ms a POST): x1 and y1 stay by position, but y0, sent back, precedes y1 in its lane.
    const back = tick(s, one, TRIM_EVERY_MS);
    expect(names(back.map((b) => b.job)).sort()).toEqual(["x2", "y0", "y1"]);
    expect(names(s.endpoints.get("A")?.waiting ?? [])).toEqual(["x1"]);
  });

  it("does not take a busy event loop for slow endpoints", () => {
    const s = newQueueState<TestJob>(0);
    const one = { concurrency: 4, perEndpoint: 1 };
    for (let i = 0; i < 6; i++) admit(s, one, job(`j${i}`, "A", `l${i}`, 1), 0);
    const [j0] = takeRunnable(s, one, 0);
    if (!j0) throw new Error("nothing ran");
    answered(s, j0, 400);
    // The trim tick came 100 ms late: 20 turns of 100 ms lag explain the 400 ms, so nothing goes back.
    expect(tick(s, one, TRIM_EVERY_MS + 100)).toEqual([]);
    expect(s.endpoints.get("A")?.waiting).toHaveLength(5);
  });

  it("hands every waiting job back on a stop", () => {
    const s = newQueueState<TestJob>(0);
    for (let i = 0; i < 3; i++) admit(s, limits, job(`j${i}`, "A", "lane", i), 0);
    takeRunnable(s, limits, 0);
    expect(names(drain(s))).toEqual(["j1", "j2"]);
    expect(s.held).toBe(1);
  });
});
