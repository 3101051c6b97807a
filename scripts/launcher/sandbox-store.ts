// The sandbox business's key and webhook secret, kept in the data folder so the next start prints the
// same ones: readable by the owner alone, as the database's own files are. Never logged.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxSeed } from "./seed.ts";

export const SANDBOX_FILE = "sandbox-business.json";

export function loadSandbox(dataDir: string): SandboxSeed | undefined {
  const file = join(dataDir, SANDBOX_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as Partial<SandboxSeed>;
    if (typeof v.apiKey === "string" && typeof v.webhookSecret === "string") {
      const businessId = typeof v.businessId === "string" ? { businessId: v.businessId } : {};
      return { apiKey: v.apiKey, webhookSecret: v.webhookSecret, ...businessId };
    }
  } catch {
    // unreadable: a new business is made and written over it
  }
  rmSync(file, { force: true });
  return undefined;
}

export function saveSandbox(dataDir: string, seed: SandboxSeed): void {
  writeFileSync(join(dataDir, SANDBOX_FILE), `${JSON.stringify(seed)}\n`, { mode: 0o600 });
}
