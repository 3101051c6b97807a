// A vitest reporter that prints nothing: it leaves the run's counts in a file, so `npm test` can close
// its output with one plain line after vitest's own report and its step line.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export const COUNTS_FILE = ".data/test-results/counts.json";

export type Counts = { passed: number; failed: number; skipped: number };

export default class CountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load has no tests to count, yet the run failed.
      if (module.state() === "failed" && module.children.size === 0) counts.failed++;
    }
    counts.failed += unhandledErrors.length;
    mkdirSync(dirname(COUNTS_FILE), { recursive: true });
    writeFileSync(COUNTS_FILE, JSON.stringify(counts));
  }
}
