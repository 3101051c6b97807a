/** Bench helpers that run a part of a measurement as a process of its own, as it runs in production. */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ServiceName } from "@ramp/contracts";
import { REPO_ROOT, serviceNodeArgs } from "@ramp/devinfra";
import { processTree } from "./process-cpu.ts";

const spawnNode = (args: string[], env: Record<string, string>) =>
  spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });

/** A TypeScript entry point of this repository (a bench's helper) run under Node through tsx. */
export const spawnTs = (
  path: string,
  args: string[] = [],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
) => spawnNode([...nodeArgs, "--import", "tsx", join(REPO_ROOT, path), ...args], env);

/** A service run from its bundle, as the launcher runs it (`ensureServiceBundles` first). */
export const spawnService = (name: ServiceName, env: Record<string, string> = {}, nodeArgs: string[] = []) =>
  spawnNode([...nodeArgs, ...serviceNodeArgs(name)], env);

/** Starts a server script that prints `listening <url>` once it serves; its url and process. */
export async function startListening(
  path: string,
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnTs(path, [], env);
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`${path} exited ${code} before it listened`)));
  });
  return { url, child };
}

/** Runs a script that takes its options as JSON in its one argument and prints one JSON line. */
export async function runJson<T>(path: string, options: unknown, timeoutS: number): Promise<T> {
  const child = spawnTs(path, [JSON.stringify(options)]);
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutS * 1000);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearTimeout(timer);
  const line = out.split("\n").find((l) => l.startsWith("{"));
  if (code !== 0 || !line) throw new Error(`${path} exited ${code}: ${out.slice(-500)}`);
  return JSON.parse(line) as T;
}

/** This process's descendants whose command line matches: the local NATS or database it started. */
export const descendantsMatching = (pattern: RegExp) => () =>
  processTree(process.pid).filter((pid) => {
    if (pid === process.pid) return false;
    try {
      return pattern.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
    } catch {
      return false;
    }
  });
