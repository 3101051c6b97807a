// One bash session per check, as a reader's terminal: variables a command sets (ORDER, KEY, …) are
// there for the next one. Each command's stdout and stderr go to a file; a marker line on the
// session's own stdout says it finished and with which status.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ShellResult {
  status: number;
  output: string;
}

export interface Shell {
  run(command: string, timeoutMs?: number): Promise<ShellResult>;
  close(): void;
}

const MARK = "__docs_command_done__";

/**
 * `curl -s` exits 0 on a 404; `.curlrc` adds `--fail-with-body`, so an error answer fails the command
 * and its body is still shown. `pipefail`, so `X=$(curl … | jq …)` fails when curl does.
 */
export function openShell(opts: { cwd: string; scratch: string; env: Record<string, string> }): Shell {
  mkdirSync(opts.scratch, { recursive: true });
  writeFileSync(join(opts.scratch, ".curlrc"), "fail-with-body\n");
  const bash: ChildProcessWithoutNullStreams = spawn("bash", ["--noprofile", "--norc"], {
    cwd: opts.cwd,
    env: { ...opts.env, CURL_HOME: opts.scratch },
  });
  bash.stdin.write("set -o pipefail\n");
  let pending: ((status: number) => void) | undefined;
  let buffered = "";
  bash.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const at = buffered.indexOf(`${MARK} `);
    const end = buffered.indexOf("\n", at);
    if (at < 0 || end < 0) return;
    const status = Number(buffered.slice(at + MARK.length + 1, end));
    buffered = buffered.slice(end + 1);
    pending?.(status);
  });
  let count = 0;
  return {
    async run(command, timeoutMs = 60_000) {
      const out = join(opts.scratch, `out-${++count}.txt`);
      const finished = new Promise<number>((resolve) => {
        pending = resolve;
      });
      // The command's own lines inside { }, so a trailing comment cannot swallow the redirection.
      bash.stdin.write(`{\n${command}\n} > '${out}' 2>&1 < /dev/null; echo "${MARK} $?"\n`);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<number>((resolve) => {
        timer = setTimeout(() => resolve(-1), timeoutMs);
      });
      const status = await Promise.race([finished, timedOut]);
      clearTimeout(timer);
      const output = readFileSync(out, "utf8");
      return {
        status,
        output: status === -1 ? `${output}\n(timed out after ${timeoutMs / 1000} s)` : output,
      };
    },
    close() {
      bash.stdin.end();
      bash.kill();
    },
  };
}
