import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { aptInstall, canAptInstall } from "./debian-packages.ts";
import { REPO_ROOT } from "./infra.ts";

/** The web console's build, which the gateway serves at /console/. */
export const CONSOLE_DIST = join(REPO_ROOT, "packages", "console", "dist");

/**
 * Builds the web console when its build is missing (a fresh clone), showing Vite's progress on stderr.
 * `always`: build even when one exists (npm test, so the browser tests drive the current source).
 */
export function ensureConsoleBuilt(opts: { always?: boolean } = {}): void {
  if (!opts.always && existsSync(join(CONSOLE_DIST, "index.html"))) return;
  process.stderr.write("[devinfra] building the web console (packages/console, Vite)…\n");
  const r = spawnSync("pnpm", ["--filter", "@ramp/console", "run", "build"], {
    cwd: REPO_ROOT,
    stdio: ["ignore", process.stderr, "inherit"],
  });
  if (r.status !== 0) throw new Error("building the web console failed (pnpm --filter @ramp/console build)");
}

/** Debian's chromium, which the console's browser tests drive through playwright-core. */
export const CHROMIUM = "/usr/bin/chromium";

/** Chromium for the browser tests, installed with apt-get when missing and this process may. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (!canAptInstall()) {
    throw new Error(
      "Chromium is not installed: install Debian's `chromium` package (the console's browser tests drive it)",
    );
  }
  aptInstall("chromium");
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing`);
  return CHROMIUM;
}
