// What `npm start` keeps between starts under its data folder: each server's store, and files of the
// launcher's own. `npm start -- --reset` removes them all.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { findPostgres, keptPostgresBase } from "./postgres.ts";

/** The servers whose folders (`<dataDir>/<name>`, with `<name>.log` beside) a kept start reuses. */
const KEPT_SERVERS = ["nats", "ferretdb", "mongod", "postgres"] as const;

/** Whether an earlier kept start left a server's data under `dataDir`. */
export function hasKeptData(dataDir: string): boolean {
  return KEPT_SERVERS.some((server) => existsSync(join(dataDir, server)));
}

/**
 * Removes every server's kept data under `dataDir` (and a cluster kept outside it for the `postgres`
 * user), plus the launcher's own `files` there.
 */
export function removeKeptData(dataDir: string, files: readonly string[] = []): void {
  for (const server of KEPT_SERVERS) {
    rmSync(join(dataDir, server), { recursive: true, force: true });
    rmSync(join(dataDir, `${server}.log`), { force: true });
  }
  if (findPostgres()) rmSync(keptPostgresBase(dataDir), { recursive: true, force: true });
  for (const file of files) rmSync(join(dataDir, file), { force: true });
}
