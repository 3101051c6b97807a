import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
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

/** What a bundle was made from, beside it: the build is redone when any of it changed. */
const stampFile = (name: ServiceName) => join(REPO_ROOT, "services", name, "dist", "main.inputs.json");

/** `node`'s arguments that run a service: its bundle, with stack traces mapped back to the TypeScript. */
export const serviceNodeArgs = (name: ServiceName): string[] => ["--enable-source-maps", serviceBundle(name)];

/**
 * A digest of every input's path, size and modification time, and of the installed dependencies
 * (pnpm rewrites `node_modules/.modules.yaml` on every install): equal digests, same bundle.
 */
function digestOf(inputs: readonly string[]): string | null {
  const hash = createHash("sha256");
  for (const file of [join(REPO_ROOT, "node_modules", ".modules.yaml"), ...inputs]) {
    try {
      const s = statSync(file);
      hash.update(`${file}\0${s.size}\0${s.mtimeMs}\n`);
    } catch {
      return null;
    }
  }
  return hash.digest("hex");
}

function isCurrent(name: ServiceName): boolean {
  try {
    statSync(serviceBundle(name));
    const stamp = JSON.parse(readFileSync(stampFile(name), "utf8")) as { inputs: string[]; digest: string };
    return digestOf(stamp.inputs) === stamp.digest;
  } catch {
    return false;
  }
}

/**
 * In a bundle, `import.meta` is the bundle's: each workspace file gets its own location written in,
 * so paths it builds from it (banking's bank catalogue, the console's build, where sodium-native is
 * resolved from) stay what they are when the file runs from source.
 */
const ownLocation: Plugin = {
  name: "own-import-meta",
  setup(b) {
    b.onLoad({ filter: /\/(services|packages)\/[^/]+\/src\/.+\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, "utf8"))
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
      loader: "ts",
    }));
  },
};

/**
 * Packages that find their native add-on from their own file's location (`__dirname`, which a bundle
 * does not have) stay outside it, required from where they are installed: each loads its add-on, or
 * falls back to JavaScript, exactly as it does when the service runs from source.
 */
const NATIVE_LOADERS = /^(bigint-buffer|bufferutil|utf-8-validate)$/;

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

/** Writes `contents` so that a process reading `file` meanwhile sees the old file or the new one whole. */
function writeWhole(file: string, contents: Uint8Array | string) {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

/**
 * Builds the bundles that are missing or older than their sources (about 4 s for all six on two
 * cores; nothing when they are current). Test files and launchers starting at once may each build:
 * every file is replaced whole, and the builds are the same.
 */
export async function ensureServiceBundles(names: readonly ServiceName[] = SERVICE_NAMES): Promise<void> {
  const stale = names.filter((name) => !isCurrent(name));
  if (stale.length === 0) return;
  const startedAt = Date.now();
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: Object.fromEntries(
      stale.map((name) => [join(name, "dist", "main"), join(REPO_ROOT, "services", name, "src", "main.ts")]),
    ),
    outdir: join(REPO_ROOT, "services"),
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    metafile: true,
    write: false,
    logLevel: "error",
    // Bundled CommonJS packages call require() for Node's own modules and optional native add-ons.
    banner: {
      js: "import { createRequire as __rampCreateRequire } from 'node:module'; const require = __rampCreateRequire(import.meta.url);",
    },
    plugins: [ownLocation, nativeLoadersOutside],
  });
  for (const file of result.outputFiles) writeWhole(file.path, file.contents);
  for (const name of stale) {
    const output = Object.entries(result.metafile.outputs).find(([out]) =>
      out.endsWith(`${name}/dist/main.mjs`),
    );
    if (!output) throw new Error(`esbuild made no bundle for ${name}`);
    const inputs = Object.keys(output[1].inputs).map((input) => join(REPO_ROOT, input));
    // A source saved while the build read it may not be in the bundle: no stamp, so the next start builds.
    if (inputs.some((input) => statSync(input).mtimeMs >= startedAt)) continue;
    writeWhole(stampFile(name), JSON.stringify({ inputs, digest: digestOf(inputs) }));
  }
}
