import type { Counter, Registry } from "prom-client";

/**
 * A counter and a histogram for the paths every request and message takes. prom-client's own make a
 * closure, check every label name and hash the label set on each call: under wrk on `GET /pub/v2/rate`
 * that was 5 % of the gateway's CPU, more than any function of its own. These find a label set's entry
 * by its values alone, in the metric's label order, and hand the registry the samples prom-client's
 * would, so `/metrics` reads the same. Label values are strings, as every caller here gives them.
 */
type Labels<L extends string> = Readonly<Record<L, string>>;

interface Options<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

/** A sample as prom-client's registry formats it (`metricName` when it is not the metric's own name). */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

interface MetricData {
  name: string;
  help: string;
  type: "counter" | "histogram";
  values: Sample[];
  aggregator: "sum";
}

/**
 * The entry of one label set, made on its first use: a tree of maps, one level per label, so a lookup
 * hashes each value (strings the callers already hold, their hashes kept) instead of building a key.
 */
function entries<L extends string, E>(labelNames: readonly L[], fresh: () => E) {
  type Leaf = { labels: Labels<L>; entry: E };
  type Level = Map<string, Level | Leaf>;
  let root: Level = new Map();
  const leaves: Leaf[] = [];
  return {
    of(labels: Labels<L>): E {
      let level = root;
      const last = labelNames.length - 1;
      for (let i = 0; i < last; i++) {
        const value = labels[labelNames[i] as L];
        let next = level.get(value) as Level | undefined;
        if (!next) {
          next = new Map();
          level.set(value, next);
        }
        level = next;
      }
      const value = last < 0 ? "" : labels[labelNames[last] as L];
      let leaf = level.get(value) as Leaf | undefined;
      if (!leaf) {
        // A copy: the caller's object may be reused or changed after the call.
        const own = {} as Record<L, string>;
        for (const name of labelNames) own[name] = labels[name];
        leaf = { labels: own, entry: fresh() };
        level.set(value, leaf);
        leaves.push(leaf);
      }
      return leaf.entry;
    },
    all: (): readonly Leaf[] => leaves,
    clear: () => {
      root = new Map();
      leaves.length = 0;
    },
  };
}

/**
 * What the registry reads of a metric: `name`, `help`, `type`, `aggregator`, `get` and `reset`. Each
 * registers itself, as prom-client's own do.
 */
abstract class HotMetric<L extends string, E> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = "sum";
  abstract readonly type: MetricData["type"];
  protected readonly series: ReturnType<typeof entries<L, E>>;

  constructor(opts: Options<L>, fresh: () => E) {
    this.name = opts.name;
    this.help = opts.help;
    this.series = entries(opts.labelNames, fresh);
    for (const r of opts.registers) r.registerMetric(this as unknown as Counter);
  }

  protected abstract samples(): Sample[];

  async get(): Promise<MetricData> {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(), aggregator: "sum" };
  }

  reset(): void {
    this.series.clear();
  }
}

export class HotCounter<L extends string> extends HotMetric<L, { value: number }> {
  readonly type = "counter";

  constructor(opts: Options<L>) {
    super(opts, () => ({ value: 0 }));
  }

  inc(labels: Labels<L>, value = 1): void {
    this.series.of(labels).value += value;
  }

  protected samples(): Sample[] {
    return this.series.all().map(({ labels, entry }) => ({ labels: { ...labels }, value: entry.value }));
  }
}

interface Buckets {
  /** Observations per bucket (not cumulative), the last one past every bound. */
  counts: number[];
  sum: number;
  count: number;
}

export class HotHistogram<L extends string> extends HotMetric<L, Buckets> {
  readonly type = "histogram";
  private readonly bounds: readonly number[];

  constructor(opts: Options<L> & { buckets: readonly number[] }) {
    const bounds = [...opts.buckets].sort((a, b) => a - b);
    super(opts, () => ({ counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 }));
    this.bounds = bounds;
  }

  observe(labels: Labels<L>, value: number): void {
    this.add(this.series.of(labels), value);
  }

  private add(s: Buckets, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: not a finite number: ${value}`);
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] as number)) i++;
    s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += value;
    s.count += 1;
  }

  /** Starts timing; the function it returns observes the seconds since, and gives them. */
  startTimer(labels: Labels<L>): () => number {
    const started = performance.now();
    // The labels as they are now: the caller may change its object before the timer ends.
    const series = this.series.of(labels);
    return () => {
      const seconds = (performance.now() - started) / 1000;
      this.add(series, seconds);
      return seconds;
    };
  }

  protected samples(): Sample[] {
    const values: Sample[] = [];
    for (const { labels, entry } of this.series.all()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += entry.counts[i] ?? 0;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push(
        { labels: { le: "+Inf", ...labels }, value: entry.count, metricName: `${this.name}_bucket` },
        { labels: { ...labels }, value: entry.sum, metricName: `${this.name}_sum` },
        { labels: { ...labels }, value: entry.count, metricName: `${this.name}_count` },
      );
    }
    return values;
  }
}
