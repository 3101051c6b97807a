import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SERVICE_NAMES, type ServiceName } from "@ramp/contracts";
import { build, type Plugin } from "esbuild";
import { REPO_ROOT } from "./infra.ts";

/**
 * Every service as one JavaScript file, `services/<name>/dist/main.mjs`: what `npm start`, the test
 * stacks and the benches run. Loaded through tsx, a service spent 3.3–5.3 s of CPU before its first
 * line ran (each of hundreds of modules resolved and compiled through tsx's loader thread); its bundle
 * takes 0.5 s, so six services start in about 2.5 s instead of 12.7 s on two cores.
 */
export const serviceBundle = (name: ServiceName) => join(REPO_ROOT, "services", name, "dist", "main.mjs");

/** An entry point of this repository and the bundle made from it (`….mjs`, with its map beside it). */
export interface BundleTarget {
  entry: string;
  bundle: string;
}

const serviceTarget = (name: ServiceName): BundleTarget => ({
  entry: join(REPO_ROOT, "services", name, "src", "main.ts"),
  bundle: serviceBundle(name),
});

/** What a bundle was made from, beside it: the build is redone when any of it changed. */
const stampFile = (bundle: string) => bundle.replace(/\.mjs$/, ".inputs.json");

/** `node`'s arguments that run a service: its bundle, with stack traces mapped back to the TypeScript. */
export const serviceNodeArgs = (name: ServiceName): string[] => ["--enable-source-maps", serviceBundle(name)];

/**
 * A digest of every input's path, size and modification time, of the installed dependencies (pnpm
 * rewrites `node_modules/.modules.yaml` on every install) and of this file, which holds the build's
 * rules: equal digests, same bundle.
 */
function digestOf(inputs: readonly string[]): string | null {
  const hash = createHash("sha256");
  const rules = fileURLToPath(import.meta.url);
  for (const file of [join(REPO_ROOT, "node_modules", ".modules.yaml"), rules, ...inputs]) {
    try {
      const s = statSync(file);
      hash.update(`${file}\0${s.size}\0${s.mtimeMs}\n`);
    } catch {
      return null;
    }
  }
  return hash.digest("hex");
}

function isCurrent(target: BundleTarget): boolean {
  try {
    statSync(target.bundle);
    const stamp = JSON.parse(readFileSync(stampFile(target.bundle), "utf8")) as {
      inputs: string[];
      digest: string;
    };
    const digest = digestOf(stamp.inputs);
    return digest !== null && digest === stamp.digest;
  } catch {
    return false;
  }
}

/**
 * In a bundle, `import.meta` is the bundle's: each file of this repository gets its own location
 * written in, so paths it builds from it (banking's bank catalogue, the console's build, the repository
 * root, where sodium-native is resolved from) stay what they are when the file runs from source, and
 * `import.meta.resolve` of a package name becomes the file it names from there, found at build time.
 */
const ownLocation: Plugin = {
  name: "own-import-meta",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      const source = await readFile(args.path, "utf8");
      const resolved = new Map<string, string>();
      for (const [, name = ""] of source.matchAll(/\bimport\.meta\.resolve\(\s*"([^"]+)"\s*\)/g)) {
        const found = await b.resolve(name, { kind: "import-statement", resolveDir: dirname(args.path) });
        if (found.errors.length > 0) return { errors: found.errors };
        resolved.set(name, pathToFileURL(found.path).href);
      }
      const contents = source
        .replace(/\bimport\.meta\.resolve\(\s*"([^"]+)"\s*\)/g, (_, name: string) =>
          JSON.stringify(resolved.get(name)),
        )
        .replace(/\bimport\.meta\.(dirname|url)\b/g, (_, field) =>
          JSON.stringify(field === "url" ? pathToFileURL(args.path).href : dirname(args.path)),
        );
      return { contents, loader: "ts" };
    });
  },
};

/**
 * Packages that find their native add-on (or esbuild, its binary) from their own file's location
 * (`__dirname`, which a bundle does not have) stay outside it, required from where they are installed:
 * each loads its add-on, or falls back to JavaScript, exactly as it does when run from source.
 */
const NATIVE_LOADERS = /^(bufferutil|utf-8-validate|esbuild)$/;

/**
 * bigint-buffer (spl-token's u64 amounts) is bundled as its JavaScript build, the code its Node build
 * falls back to. Its add-on is never built here (pnpm-workspace.yaml), so the Node build's only
 * difference is a failed load at start-up and a warning about it in every chain-watcher's output.
 */
const bigintBufferAsJavaScript: Plugin = {
  name: "bigint-buffer-as-javascript",
  setup(b) {
    b.onResolve({ filter: /^bigint-buffer$/ }, (args) =>
      b.resolve("bigint-buffer/dist/browser.js", {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
      }),
    );
  },
};

const nativeLoadersOutside: Plugin = {
  name: "native-loaders-outside",
  setup(b) {
    b.onResolve({ filter: NATIVE_LOADERS }, async (args) => {
      if (args.pluginData === "resolving") return undefined;
      const found = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "resolving",
      });
      return found.errors.length > 0 ? { errors: found.errors } : { path: found.path, external: true };
    });
  },
};

/**
 * A `require` for bundled CommonJS packages, which call it for Node's own modules and optional native
 * add-ons. Its `import.meta` is spelled in parts: bundled itself (the benches hold devinfra), this file
 * must not have it rewritten by `ownLocation`.
 */
const REQUIRE_BANNER = `import { createRequire as __rampCreateRequire } from 'node:module'; const require = __rampCreateRequire(${["import", "meta", "url"].join(".")});`;

/** Writes `contents` so that a process reading `file` meanwhile sees the old file or the new one whole. */
function writeWhole(file: string, contents: Uint8Array | string) {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

/**
 * Builds the bundles that are missing or older than their sources (about 4 s for all six services on
 * two cores; nothing when they are current). Test files and launchers starting at once may each build:
 * every file is replaced whole, and the builds are the same.
 */
export async function ensureBundles(targets: readonly BundleTarget[]): Promise<void> {
  const stale = targets.filter((target) => !isCurrent(target));
  if (stale.length === 0) return;
  const startedAt = Date.now();
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: stale.map((t) => ({
      in: t.entry,
      out: relative(REPO_ROOT, t.bundle).replace(/\.mjs$/, ""),
    })),
    outdir: REPO_ROOT,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    metafile: true,
    write: false,
    logLevel: "error",
    banner: { js: REQUIRE_BANNER },
    plugins: [ownLocation, bigintBufferAsJavaScript, nativeLoadersOutside],
  });
  for (const file of result.outputFiles) writeWhole(file.path, file.contents);
  for (const target of stale) {
    const made = result.metafile.outputs[relative(REPO_ROOT, target.bundle)];
    if (!made) throw new Error(`esbuild made no bundle ${target.bundle}`);
    const inputs = Object.keys(made.inputs).map((input) => join(REPO_ROOT, input));
    // A source saved while the build read it may not be in the bundle, and an input that cannot be
    // read cannot be watched: no stamp either way, so the next start builds again.
    const digest = digestOf(inputs);
    if (digest === null || inputs.some((input) => statSync(input).mtimeMs >= startedAt)) continue;
    writeWhole(stampFile(target.bundle), JSON.stringify({ inputs, digest }));
  }
}

/** `ensureBundles` for the services' own bundles (every service unless named). */
export const ensureServiceBundles = (names: readonly ServiceName[] = SERVICE_NAMES) =>
  ensureBundles(names.map(serviceTarget));
