import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const NATS_MODULE = "github.com/nats-io/nats-server/v2@v2.15.2";
/** Renders deploy/k8s in the deployment manifests' test; served by the Go module proxy at this exact version. */
export const KUSTOMIZE_MODULE = "sigs.k8s.io/kustomize/kustomize/v5@v5.7.1";
/** Tried in order; v1.24.0 is a fallback should the proxy stop serving v1.24.2. */
export const FERRET_VERSIONS = ["v1.24.2", "v1.24.0"];

function onPath(bin: string): string | undefined {
  const r = spawnSync("sh", ["-c", `command -v ${bin}`], { encoding: "utf8" });
  const found = r.stdout.trim();
  return r.status === 0 && found ? found : undefined;
}

function log(msg: string) {
  process.stderr.write(`[devinfra] ${msg}\n`);
}

/** `bin` from PATH, else from the tools folder, else built there with `go install module`. */
function ensureGoBinary(toolsDir: string, bin: string, module: string): string {
  const fromPath = onPath(bin);
  if (fromPath) return fromPath;
  const path = join(toolsDir, "bin", bin);
  if (existsSync(path)) return path;
  log(
    `building ${bin} (${module}) into ${path}: once only, a few minutes on a slow machine; each package is listed as it compiles`,
  );
  mkdirSync(join(toolsDir, "bin"), { recursive: true });
  execFileSync("go", ["install", "-v", module], {
    // stdout stays clean for callers that read a tool's output; progress goes to stderr.
    stdio: ["ignore", process.stderr, "inherit"],
    env: { ...process.env, GOBIN: join(toolsDir, "bin"), GOFLAGS: "-buildvcs=false" },
  });
  return path;
}

export const ensureNatsServer = (toolsDir: string): string =>
  ensureGoBinary(toolsDir, "nats-server", NATS_MODULE);

export const ensureKustomize = (toolsDir: string): string =>
  ensureGoBinary(toolsDir, "kustomize", KUSTOMIZE_MODULE);

export function findMongod(): string | undefined {
  return onPath("mongod");
}

/**
 * FerretDB 1.x, built from the module source: one binary holding both its PostgreSQL and its SQLite
 * backend; which one runs is chosen when it starts. `go install …@version` fails on this machine's
 * proxy (it reads the module's version list for deprecations, and that list answers 403), so the exact
 * version is fetched with `go mod download` and built in a scratch copy, with the version file the build
 * expects (normally generated from git).
 */
export function ensureFerretDb(toolsDir: string): string {
  const fromPath = onPath("ferretdb");
  if (fromPath) return fromPath;
  const bin = join(toolsDir, "bin", "ferretdb");
  if (existsSync(bin)) return bin;
  mkdirSync(join(toolsDir, "bin"), { recursive: true });
  const env = { ...process.env, GOFLAGS: "-buildvcs=false" };
  let lastErr: unknown;
  for (const version of FERRET_VERSIONS) {
    const scratch = mkdtempSync(join(tmpdir(), "ferretdb-build-"));
    try {
      log(
        `building FerretDB ${version} (PostgreSQL and SQLite backends) into ${bin}: once only, several minutes on a slow machine; each package is listed as it compiles`,
      );
      const info = execFileSync(
        "go",
        ["mod", "download", "-json", `github.com/FerretDB/FerretDB@${version}`],
        {
          cwd: scratch,
          env,
          encoding: "utf8",
        },
      );
      const dir = (JSON.parse(info) as { Dir?: string }).Dir;
      if (!dir) throw new Error(`go mod download gave no directory for FerretDB ${version}`);
      const src = join(scratch, "src");
      cpSync(dir, src, { recursive: true });
      chmodRecursive(src);
      writeFileSync(join(src, "build", "version", "version.txt"), `${version}\n`);
      execFileSync("go", ["build", "-v", "-o", bin, "./cmd/ferretdb"], { cwd: src, env, stdio: "inherit" });
      log(`FerretDB ${version} built; later runs reuse ${bin}`);
      return bin;
    } catch (err) {
      lastErr = err;
      log(
        `FerretDB ${version} could not be built: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  throw new Error(`FerretDB could not be installed: ${String(lastErr)}`);
}

function chmodRecursive(dir: string) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) chmodRecursive(p);
    else chmodSync(p, 0o644);
  }
}
