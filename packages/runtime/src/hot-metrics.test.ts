import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { HotCounter, HotHistogram } from "./hot-metrics.ts";

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const observations: Array<[{ method: string; route: string }, number]> = [
  [{ method: "GET", route: "/pub/v2/rate" }, 0.0004],
  [{ method: "GET", route: "/pub/v2/rate" }, 0.005],
  [{ method: "POST", route: "/pub/v2/offramp" }, 0.07],
  [{ method: "GET", route: "/pub/v2/rate" }, 0.3],
  [{ method: "POST", route: "/pub/v2/offramp" }, 12],
];

describe("hot metrics", () => {
  it("expose exactly what prom-client's own counter and histogram expose for the same calls", async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const opts = { help: "latency", labelNames: ["method", "route"] as const, buckets };
    const theirHistogram = new Histogram({ ...opts, name: "lat_seconds", registers: [theirs] });
    const ourHistogram = new HotHistogram({ ...opts, name: "lat_seconds", registers: [ours] });
    const counted = { help: "requests", labelNames: ["method", "route", "status"] as const };
    const theirCounter = new Counter({ ...counted, name: "req_total", registers: [theirs] });
    const ourCounter = new HotCounter({ ...counted, name: "req_total", registers: [ours] });
    for (const [labels, seconds] of observations) {
      theirHistogram.observe(labels, seconds);
      ourHistogram.observe(labels, seconds);
      theirCounter.inc({ ...labels, status: "200" });
      ourCounter.inc({ ...labels, status: "200" });
    }
    ourCounter.inc({ method: "GET", route: "/x", status: "503" }, 2);
    theirCounter.inc({ method: "GET", route: "/x", status: "503" }, 2);

    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('lat_seconds_bucket{le="0.005",method="GET",route="/pub/v2/rate"} 2');
    expect(text).toContain('lat_seconds_bucket{le="+Inf",method="POST",route="/pub/v2/offramp"} 2');
    expect(text).toContain('req_total{method="GET",route="/x",status="503"} 2');
  });

  it("times a call and keeps a label set apart from the caller's object", async () => {
    const registry = new Registry();
    const histogram = new HotHistogram({
      name: "call_seconds",
      help: "calls",
      labelNames: ["subject"],
      buckets,
      registers: [registry],
    });
    const labels = { subject: "a" };
    const done = histogram.startTimer(labels);
    labels.subject = "b";
    expect(done()).toBeGreaterThanOrEqual(0);
    const text = await registry.metrics();
    expect(text).toContain('call_seconds_count{subject="a"} 1');
    expect(text).not.toContain('subject="b"');
    histogram.reset();
    expect(await registry.metrics()).not.toContain("call_seconds_count");
  });

  it("refuses a value that is not a finite number, as prom-client does", () => {
    const histogram = new HotHistogram({
      name: "bad_seconds",
      help: "bad",
      labelNames: [],
      buckets,
      registers: [],
    });
    expect(() => histogram.observe({}, Number.NaN)).toThrow(TypeError);
  });
});
