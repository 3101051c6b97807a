import { execFileSync, spawnSync } from "node:child_process";

/** Root on a machine with apt-get: a missing Debian package can be installed. */
export function canAptInstall(): boolean {
  return process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v apt-get"]).status === 0;
}

/** Installs one Debian package (apt-get's progress on stderr); call only where `canAptInstall()`. */
export function aptInstall(pkg: string): void {
  process.stderr.write(`[devinfra] installing Debian's ${pkg} package (once only)\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const stdio = ["ignore", process.stderr, "inherit"] as const;
  execFileSync("apt-get", ["update", "-q"], { env, stdio: [...stdio] });
  execFileSync("apt-get", ["install", "-y", "-q", "--no-install-recommends", pkg], {
    env,
    stdio: [...stdio],
  });
}
