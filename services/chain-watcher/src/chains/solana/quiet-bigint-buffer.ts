/**
 * Loads @solana/spl-token with one known start-up warning dropped. Imported first by `main.ts` and the
 * package's `index.ts`, before anything that reaches spl-token, so the warning is gone from every
 * process running chain-watcher.
 *
 * spl-token reads u64 amounts through bigint-buffer, which tries a native addon at load and, without
 * it, prints "bigint: Failed to load bindings, pure JS will be used" and uses its JavaScript code.
 * The addon is deliberately not built (pnpm-workspace.yaml lists bigint-buffer under
 * `ignoredBuiltDependencies`): building it needs a C++ toolchain and node-gyp fetching Node headers
 * at install time, the one known memory-safety bug of bigint-buffer 1.1.5 (CVE-2025-3194) is in that
 * native code, and the JavaScript fallback gives the same values (hex → BigInt), fast enough for the
 * few amounts a block carries.
 * So the warning says nothing an operator can act on; only that exact line is dropped, only while the
 * module loads, and every other warning passes through. This is for chain-watcher run from source (tests
 * through tsx); the bundle a service runs as holds bigint-buffer's JavaScript build, which has no add-on
 * to try (packages/devinfra/src/service-bundles.ts).
 */
const NOTICE = "bigint: Failed to load bindings, pure JS will be used";

const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === "string" && args[0].startsWith(NOTICE)) return;
  warn(...args);
};
try {
  await import("@solana/spl-token");
} finally {
  console.warn = warn;
}
