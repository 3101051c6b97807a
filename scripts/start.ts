// `npm start`: infrastructure, the six services, a sandbox business and market rates; Ctrl-C stops it all.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { DATA_DIR, REPO_ROOT, startInfra, withoutNatsSeeds } from "@ramp/devinfra";

const SERVICES = ["pricing", "banking", "chain-watcher", "orders", "webhook-dispatcher", "gateway"] as const;
const SANDBOX_RATES: Record<string, [number, number]> = {
  NGN: [1650, 1580],
  GHS: [15.6, 15.1],
  KES: [130.5, 128.2],
  TZS: [2680, 2620],
  ZAR: [18.6, 18.1],
  USD: [1, 1],
};

const started = Date.now();
const port = Number(process.env.PORT ?? 8080);
const adminToken = process.env.ADMIN_TOKEN ?? randomBytes(24).toString("hex");
const infra = await startInfra({ dataDir: join(DATA_DIR, "local") });
process.stderr.write(`[start] infra (${infra.source}): ${infra.natsUrl} ${infra.mongoUrl}\n`);

const children: ChildProcess[] = [];
const tsx = join(REPO_ROOT, "node_modules", ".bin", "tsx");
for (const name of SERVICES) {
  const child = spawn(tsx, [join(REPO_ROOT, "services", name, "src", "main.ts")], {
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...withoutNatsSeeds(process.env),
      NATS_URL: infra.natsUrl,
      NATS_NKEY_SEED: infra.natsSeeds[name],
      MONGODB_URI: infra.mongoUrl,
      ADMIN_TOKEN: adminToken,
      PORT: String(port),
      RAMP_SANDBOX: process.env.RAMP_SANDBOX ?? "true",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    },
  });
  child.on("exit", (code, signal) => {
    if (!stopping) process.stderr.write(`[start] ${name} exited (${code ?? signal})\n`);
  });
  children.push(child);
}

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          c.once("exit", () => resolve());
          c.kill("SIGTERM");
        }),
    ),
  );
  await infra.stop();
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

const base = `http://127.0.0.1:${port}`;
const admin = (method: string, path: string, body: unknown) =>
  fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

// The gateway is up when /readyz answers; the admin calls then need pricing and webhook-dispatcher too.
async function retry<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not succeed within 120 s`);
}
await retry("gateway readiness", async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
for (const [currency, [onRamp, offRamp]] of Object.entries(SANDBOX_RATES)) {
  await retry(`rate ${currency}`, async () =>
    (await admin("PUT", `/rates/${currency}`, { onRamp, offRamp })).ok ? true : undefined,
  );
}
const business = await retry("sandbox business", async () => {
  const res = await admin("POST", "/businesses", { name: "Sandbox Business", feeBps: 0 });
  return res.status === 201 ? ((await res.json()) as { id: string; apiKey: string }) : undefined;
});

process.stdout.write(
  [
    "",
    `Ramp is running (${((Date.now() - started) / 1000).toFixed(1)} s).`,
    `  API:            ${base}  (reference: ${base}/docs, OpenAPI: ${base}/openapi.json)`,
    `  Sandbox key:    ${business.apiKey}`,
    `  Admin token:    ${adminToken}`,
    `  Try:            curl -H 'x-api-key: ${business.apiKey}' '${base}/pub/v2/rate?currency=NGN'`,
    "  Stop with Ctrl-C.",
    "",
  ].join("\n"),
);
