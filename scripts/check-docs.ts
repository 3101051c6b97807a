// `npm run check:docs`: every command README.md, docs/*.md and bench/README.md show, checked as a reader would type it.
// Starts the stack with `npm start` in the background (its own port and data folder), reads the key
// and token it prints, then runs each documented command in one shell with those filled in, and the
// copy-paste example the banner printed; commands that need Docker, take minutes or would change the
// repository are skipped with the reason. Prints each command, the first line of its output and
// PASS/FAIL/SKIP; exits 1 on any FAIL.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, REPO_ROOT, TOOLS_DIR } from "@ramp/devinfra";
import { splitCommands } from "./docs-commands/extract.ts";
import { fillIn, type StackFacts } from "./docs-commands/plan.ts";
import { firstLine, formatOutcome, type Outcome, runDocumented } from "./docs-commands/run.ts";
import { openShell } from "./docs-commands/shell.ts";

const dataDir = mkdtempSync(join(tmpdir(), "ramp-docs-check-"));
const say = (line: string) => process.stdout.write(`${line}\n`);
const START_WITHIN_MS = 15 * 60_000; // a first start builds nats-server and FerretDB

async function startStack(port: number): Promise<{ child: ChildProcess; banner: string }> {
  say(`[check:docs] npm start on port ${port} (the first start on a machine builds tools; minutes)`);
  const child = spawn("npm", ["start"], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PORT: String(port),
      RAMP_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
    },
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Ctrl-C to what started, so nothing is left running behind the failed check.
      process.kill(-(child.pid ?? 0), "SIGINT");
      reject(new Error(`npm start printed no banner within ${START_WITHIN_MS / 60_000} min`));
    }, START_WITHIN_MS);
    child.stdout?.on("data", () => {
      if (out.includes("Stop with Ctrl-C.")) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${err.split("\n").slice(-15).join("\n")}`));
    });
  });
  return { child, banner };
}

function stopStack(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    // Ctrl-C to the launcher's process group, as in a terminal: it drains the services itself.
    process.kill(-(child.pid ?? 0), "SIGINT");
  });
}

const field = (banner: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(banner)?.[1];

const receiver = createServer((_req, res) => res.writeHead(200).end());
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
// A port of its own rather than 8080, so a stack already running there is neither used nor disturbed.
const port = await freePort();
const { child, banner } = await startStack(port);
let failed = 0;
try {
  const url = field(banner, "API") ?? `http://127.0.0.1:${port}`;
  const facts: StackFacts = {
    url,
    apiKey: field(banner, "Sandbox key") ?? "",
    adminToken: field(banner, "Admin token") ?? "",
    webhookTarget: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    scratch: join(dataDir, "scratch"),
  };
  const shell = openShell({
    cwd: REPO_ROOT,
    scratch: facts.scratch,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      RAMP_TOOLS_BIN: join(TOOLS_DIR, "bin"),
      TURBO_TELEMETRY_DISABLED: "1",
    },
  });
  const print = (o: Outcome) => {
    if (o.verdict === "fail") failed++;
    say(formatOutcome(o));
  };
  await runDocumented({
    root: REPO_ROOT,
    shell,
    facts,
    quickOnly: false,
    started: firstLine(banner),
    onOutcome: print,
  });
  // The example the banner printed, pasted as printed.
  const pasted = banner
    .split("\n")
    .filter((l) => l.startsWith("    "))
    .map((l) => l.slice(4));
  for (const { text } of splitCommands(pasted)) {
    const r = await shell.run(fillIn(text, facts));
    print({
      command: { file: "npm start banner", line: 0, text, inline: false },
      verdict: r.status === 0 ? "pass" : "fail",
      detail: firstLine(r.output),
    });
  }
  shell.close();
} finally {
  await stopStack(child);
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
say(failed === 0 ? "[check:docs] every command checked passed" : `[check:docs] ${failed} command(s) FAILED`);
process.exit(failed === 0 ? 0 : 1);
