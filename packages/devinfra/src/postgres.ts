import { type ChildProcess, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aptInstall, canAptInstall } from "./debian-packages.ts";
import { freePort, type LaunchOptions, launch, serverDir } from "./processes.ts";

/** Where Debian's `postgresql` package puts each major version's server binaries. */
const DEBIAN_PG_ROOT = "/usr/lib/postgresql";
/** PostgreSQL refuses to run as root; as root the cluster runs as the system user the Debian package creates. */
const SYSTEM_USER = "postgres";
const DB_USER = "ramp";

function log(msg: string) {
  process.stderr.write(`[devinfra] ${msg}\n`);
}

/** The folder holding `initdb` and `postgres`: the newest /usr/lib/postgresql/<major>/bin, else where PATH has them. */
export function findPostgres(): string | undefined {
  if (existsSync(DEBIAN_PG_ROOT)) {
    const majors = readdirSync(DEBIAN_PG_ROOT)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(DEBIAN_PG_ROOT, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(DEBIAN_PG_ROOT, majors[0], "bin");
  }
  const r = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  const initdb = r.stdout.trim();
  return r.status === 0 && initdb ? initdb.slice(0, initdb.lastIndexOf("/")) : undefined;
}

/** Whether FerretDB can run on PostgreSQL here: it is installed, or `ensurePostgres` can install it. */
export function postgresAvailable(): boolean {
  return findPostgres() !== undefined || canAptInstall();
}

/**
 * The PostgreSQL binaries, installed with Debian's package manager when missing and this process may
 * (root with apt-get); otherwise an error that says what to install. Called before tests and at start-up
 * only when the PostgreSQL backend is chosen, never from inside a test.
 */
export function ensurePostgres(): string {
  const found = findPostgres();
  if (found) return found;
  if (!canAptInstall()) {
    throw new Error(
      "PostgreSQL is not installed: install Debian's `postgresql` package (or put initdb and postgres on PATH), or use RAMP_LOCAL_DB=sqlite",
    );
  }
  aptInstall("postgresql");
  const installed = findPostgres();
  if (!installed)
    throw new Error("apt-get installed postgresql but no initdb was found under /usr/lib/postgresql");
  return installed;
}

function systemUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync("id", [flag, SYSTEM_USER], { encoding: "utf8" });
  const [u, g] = [id("-u"), id("-g")];
  if (u.status !== 0 || g.status !== 0) {
    throw new Error(`PostgreSQL cannot run as root and there is no "${SYSTEM_USER}" user to run it as`);
  }
  return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}

export interface PostgresServer {
  /** A libpq URL with the generated password: hand it on through the environment, never a command line. */
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Whether the `owner` user can enter `dir` (every folder above it must let it through). */
function canEnter(owner: { uid: number; gid: number }, dir: string): boolean {
  const args = [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups", "--", "test", "-x", dir];
  return spawnSync("setpriv", args).status === 0;
}

/**
 * Where the cluster lives. A kept one under `dataDir` (`postgres`), or, as root when the `postgres` user
 * cannot enter `dataDir` (a home only root can enter), in a folder of /var/tmp named for `dataDir`, so
 * the next start finds it (`removeKeptData` removes it with the rest). A throwaway one beside the other servers' (`postgres-<port>`),
 * or as root in a fresh folder of the system temp folder, removed on stop.
 */
export function postgresBase(
  dataDir: string,
  port: number,
  opts: LaunchOptions,
  owner: { uid: number; gid: number } | undefined,
): { base: string; removeOnStop: boolean } {
  if (!owner) return { base: serverDir(dataDir, "postgres", port, opts), removeOnStop: false };
  if (!opts.keep) return { base: mkdtempSync(join(tmpdir(), `ramp-postgres-${port}-`)), removeOnStop: true };
  const inData = join(dataDir, "postgres");
  if (canEnter(owner, dataDir)) return { base: inData, removeOnStop: false };
  // /var/tmp rather than /tmp: kept across a reboot.
  const parent = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
  const tag = createHash("sha256").update(dataDir).digest("hex").slice(0, 12);
  return { base: join(parent, `ramp-postgres-kept-${tag}`), removeOnStop: false };
}

/** The folder of the cluster a `keep` start under `dataDir` uses (whether or not it exists yet). */
export function keptPostgresBase(dataDir: string): string {
  const owner = process.getuid?.() === 0 ? systemUserIds() : undefined;
  return postgresBase(dataDir, 0, { keep: true }, owner).base;
}

/**
 * A private PostgreSQL cluster on 127.0.0.1 (no unix socket) with one password-protected superuser: its
 * port is reachable by every local user, so it is not left open the way a `trust` cluster would be.
 * Made by initdb, unless `keep` and an earlier start left one (its password kept beside it, readable by
 * its owner alone, as ~/.pgpass would be). Run as the current user; as root (which PostgreSQL refuses)
 * as the `postgres` user.
 */
export async function startPostgres(
  binDir: string,
  dataDir: string,
  port?: number,
  opts: LaunchOptions = {},
): Promise<PostgresServer> {
  const p = port ?? (await freePort());
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? systemUserIds() : undefined;
  const { base, removeOnStop } = postgresBase(dataDir, p, opts, owner);
  if (opts.keep && !base.startsWith(dataDir)) {
    log(`the ${SYSTEM_USER} user cannot enter ${dataDir}: its cluster is kept in ${base}`);
  }
  const pgdata = join(base, "data");
  const pwfile = join(base, "password");
  // setpriv replaces itself with the command, so the pid we hold (and signal) is the server's own.
  const asOwner = (bin: string, args: string[]): [string, string[]] =>
    owner
      ? ["setpriv", [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups", "--", bin, ...args]]
      : [bin, args];
  const reused = opts.keep === true && existsSync(join(pgdata, "PG_VERSION")) && existsSync(pwfile);
  let password: string;
  if (reused) {
    password = readFileSync(pwfile, "utf8").trim();
  } else {
    // Whatever an interrupted initdb left is of no use.
    rmSync(base, { recursive: true, force: true });
    mkdirSync(base, { recursive: true, mode: 0o700 });
    password = randomBytes(18).toString("base64url");
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (owner) {
      chownSync(base, owner.uid, owner.gid);
      chownSync(pwfile, owner.uid, owner.gid);
    }
    const [initBin, initArgs] = asOwner(join(binDir, "initdb"), [
      `--pgdata=${pgdata}`,
      `--username=${DB_USER}`,
      `--pwfile=${pwfile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      // Flushing initdb's files to disk would only slow every start of a throwaway cluster.
      ...(opts.keep ? [] : ["--no-sync"]),
    ]);
    const init = spawnSync(initBin, initArgs, { cwd: base, encoding: "utf8" });
    if (!opts.keep) rmSync(pwfile, { force: true });
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout || init.error}`);
  }
  const [serverBin, serverArgs] = asOwner(join(binDir, "postgres"), [
    "-D",
    pgdata,
    "-p",
    String(p),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "unix_socket_directories=",
    // Not waiting for the disk on every commit: an OS crash can lose the last commits of a local
    // cluster, never corrupt it.
    "-c",
    "synchronous_commit=off",
    // FerretDB sends each field name as a bind parameter (`_jsonb->$1 @> $2`) of statements it keeps
    // prepared. A generic plan cannot see which field that is, so it can use no index and scans the
    // table; PostgreSQL switches a statement to its generic plan when that looked as cheap, which it
    // does while a collection is small, and keeps it as the collection grows until the next ANALYZE.
    // Measured: a sweep's `{outboxPending: true}` planned on 20 rows then read all 100,000 rows on
    // each of 19 calls. Planning each execution with its field names keeps every equality on its index.
    "-c",
    "plan_cache_mode=force_custom_plan",
  ]);
  const logFile = `${serverDir(dataDir, "postgres", p, opts)}.log`;
  const child = launch(serverBin, serverArgs, logFile, opts);
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        if (removeOnStop) rmSync(base, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once("exit", done);
      // SIGINT is PostgreSQL's fast shutdown: SIGTERM would wait for every client to disconnect.
      child.kill("SIGINT");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
  try {
    await waitForPostgres(binDir, p, child, logFile);
  } catch (err) {
    await stop();
    throw err;
  }
  // pool_max_conns sizes FerretDB's pool (pgx reads it from the URL). Its default, the core count (4 at
  // least), deadlocked FerretDB 1.24 under a burst of writes: every pooled connection taken by an
  // update waiting to acquire another, each request then waiting for ever. Within max_connections (100).
  const url = `postgres://${DB_USER}:${password}@127.0.0.1:${p}/postgres?pool_max_conns=${FERRET_POOL_CONNS}`;
  return { url, port: p, child, stop };
}

const FERRET_POOL_CONNS = 64;

/** Accepting connections, not only listening: while it recovers or starts up PostgreSQL refuses them. */
async function waitForPostgres(binDir: string, port: number, child: ChildProcess, logFile: string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited while starting (see ${logFile})`);
    }
    const ready = spawnSync(join(binDir, "pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(port)]);
    if (ready.status === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`postgres did not accept connections on 127.0.0.1:${port} within 60 s (see ${logFile})`);
}

/**
 * FerretDB 1.24 pushes an equality down as `_jsonb->'field' @> value` (jsonb containment), and builds
 * each index the services ask for as a btree on `_jsonb->'field'`, which cannot answer `@>`: without
 * more, every query it sends — a lookup by `_id` included — is a sequential scan of the whole table,
 * its cost growing with every document ever stored. This event trigger gives each of those btree
 * indexes a GIN twin on its leading field, which does answer `@>`, so an equality on an indexed field
 * (`_id`, a state, a pending-work flag) reads the matching rows only. One twin per field: indexes that
 * lead with the same field (an order's `status`, in three of them) share it, since every rewrite of a
 * row adds an entry to each index of its table. Installed before FerretDB starts,
 * so it covers every collection it creates; the twins live and die with their tables.
 *
 * A btree that enforces no uniqueness is then dropped. FerretDB 1.24 filters with `@>` alone and
 * pushes down no sort but `$natural`, so such a btree answers none of its queries, while every update
 * (FerretDB writes a new row version for each) adds an entry to it and the planner weighs it on every
 * query. Unique ones stay: they keep ids and keys unique, and the `_id` one finds the row an update
 * rewrites (`WHERE _jsonb->'_id' = $2`).
 *
 * The twins are made with `fastupdate` off. With it on, GIN files new entries in a pending list that
 * every search reads whole until a vacuum merges it, so a lookup grew with the inserts since: by `_id`
 * at 300,000 orders it read 225 pages in 4.2 ms (findOne p50 5–7.5 ms from 10⁵ rows on, against 1.6 ms
 * at 10⁴); with it off, 5 pages in 0.09 ms (findOne p50 0.8–1.1 ms at every size).
 */
const CONTAINMENT_INDEXES_SQL = `
CREATE OR REPLACE FUNCTION ramp_containment_index() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE
  cmd record;
  tbl regclass;
  idx name;
  expr text;
  uniq boolean;
BEGIN
  FOR cmd IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' LOOP
    SELECT i.indrelid::regclass, c.relname, pg_get_indexdef(i.indexrelid, 1, true), i.indisunique
      INTO tbl, idx, expr, uniq
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
      WHERE i.indexrelid = cmd.objid AND a.amname = 'btree';
    CONTINUE WHEN expr IS NULL OR expr NOT LIKE '(_jsonb -> %';
    IF NOT EXISTS (SELECT 1 FROM pg_index gi JOIN pg_class gc ON gc.oid = gi.indexrelid
        JOIN pg_am ga ON ga.oid = gc.relam
        WHERE gi.indrelid = tbl AND ga.amname = 'gin' AND pg_get_indexdef(gi.indexrelid, 1, true) = expr) THEN
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin (%s jsonb_path_ops) WITH (fastupdate = off)',
        left(idx, 59) || '_gin', tbl, expr);
    END IF;
    IF NOT uniq THEN
      EXECUTE format('DROP INDEX %s', cmd.objid::regclass);
    END IF;
  END LOOP;
END
$fn$;
-- What a kept cluster made before: btrees with a twin and no uniqueness (made before they were
-- dropped), and twins repeating an older twin of the same field (made before one per field) go now.
DO $do$
DECLARE
  idx regclass;
BEGIN
  FOR idx IN SELECT c.oid::regclass FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      JOIN pg_am a ON a.oid = c.relam
      WHERE (a.amname = 'btree' AND NOT i.indisunique
          AND pg_get_indexdef(i.indexrelid, 1, true) LIKE '(_jsonb -> %'
          AND EXISTS (SELECT 1 FROM pg_class t WHERE t.relname = left(c.relname, 59) || '_gin'
            AND t.relnamespace = c.relnamespace))
        OR (a.amname = 'gin' AND c.relname LIKE '%\\_gin'
          AND EXISTS (SELECT 1 FROM pg_index j JOIN pg_class d ON d.oid = j.indexrelid
            JOIN pg_am b ON b.oid = d.relam
            WHERE b.amname = 'gin' AND j.indrelid = i.indrelid AND j.indexrelid < i.indexrelid
              AND pg_get_indexdef(j.indexrelid, 1, true) = pg_get_indexdef(i.indexrelid, 1, true))) LOOP
    EXECUTE format('DROP INDEX %s', idx);
  END LOOP;
END
$do$;
-- Twins made before they were made with fastupdate off (a kept cluster) are changed, and their pending
-- lists merged now rather than at the next vacuum.
DO $do$
DECLARE
  twin regclass;
BEGIN
  FOR twin IN SELECT c.oid::regclass FROM pg_class c JOIN pg_am a ON a.oid = c.relam
      WHERE c.relkind = 'i' AND a.amname = 'gin' AND c.relname LIKE '%\\_gin'
        AND NOT coalesce(c.reloptions @> ARRAY['fastupdate=off'], false) LOOP
    EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', twin);
    PERFORM gin_clean_pending_list(twin);
  END LOOP;
END
$do$;
DROP EVENT TRIGGER IF EXISTS ramp_containment_index;
CREATE EVENT TRIGGER ramp_containment_index ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION ramp_containment_index();
`;

/**
 * A document past about 2 KB (an order with its outbox) is compressed on every write, and FerretDB
 * rewrites the whole document on each update: pglz took 3 % of the server's time under deposits at 30/s
 * (perf), about 1 % of a core, too little to show in a rate. lz4 compresses several times faster; a
 * server built without it (or older than 14) keeps pglz.
 */
const LZ4_TOAST_SQL = `
DO $do$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET default_toast_compression = %L', current_database(), 'lz4');
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'lz4 compression not available: %', SQLERRM;
END
$do$;
`;

/** Readies the database FerretDB will use (its URL's database): the index trigger above, and lz4 for its documents. */
export function prepareForFerretDb(binDir: string, pg: PostgresServer): void {
  psql(binDir, pg, ["-v", "ON_ERROR_STOP=1", "-q"], CONTAINMENT_INDEXES_SQL + LZ4_TOAST_SQL);
}

/**
 * Runs psql against `pg` (its URL's database) and returns what it printed; the password goes through
 * the environment, never the command line.
 */
export function psql(binDir: string, pg: PostgresServer, args: string[], input?: string): string {
  const url = new URL(pg.url);
  const r = spawnSync(join(binDir, "psql"), ["-X", ...args], {
    input,
    encoding: "utf8",
    env: {
      ...process.env,
      PGHOST: url.hostname,
      PGPORT: url.port,
      PGUSER: decodeURIComponent(url.username),
      PGPASSWORD: decodeURIComponent(url.password),
      PGDATABASE: url.pathname.slice(1) || "postgres",
    },
  });
  if (r.status !== 0) throw new Error(`psql failed: ${r.stderr || r.error}`);
  return r.stdout;
}
