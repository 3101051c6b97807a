// @ramp/sdk as an integrator gets it: built and packed by the SDK's own script, installed from the
// tarball alone into a fresh project outside the repository (no workspace, no registry), and used there
// with plain `node` against a running stack; its declarations typecheck in that project without the
// repository's contracts or zod.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "@ramp/devinfra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_OFFRAMP } from "../scripts/launcher/sandbox-example.ts";
import { type Stack, startStack } from "./support/stack.ts";

const CONSUMER = `
import { createServer } from "node:http";
import { createRampClient, verifyWebhook, WebhookVerificationError } from "@ramp/sdk";

const { RAMP_URL, RAMP_KEY, RAMP_SECRET, OFFRAMP } = process.env;
const ramp = createRampClient({ apiKey: RAMP_KEY, baseUrl: RAMP_URL });
const rates = await ramp.rates.get({ currency: "NGN" });
const order = await ramp.offramp.create(JSON.parse(OFFRAMP));

// A receiver of our own, as an integrator runs one: the raw body and headers of each delivery.
const deliveries = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    deliveries.push({ raw: Buffer.concat(chunks), headers: req.headers });
    res.end("ok");
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
await ramp.webhooks.update({ rampWebhookURL: \`http://127.0.0.1:\${server.address().port}/ramp\` });
const test = await ramp.webhooks.test({ type: "RAMP" });
server.close();
const [delivery] = deliveries;
const payload = verifyWebhook({ rawBody: delivery.raw, headers: delivery.headers, secret: RAMP_SECRET });
let tampered = "accepted";
try {
  verifyWebhook({ rawBody: Buffer.concat([delivery.raw, Buffer.from(" ")]), headers: delivery.headers, secret: RAMP_SECRET });
} catch (err) {
  tampered = err instanceof WebhookVerificationError ? err.reason : String(err);
}
console.log(JSON.stringify({ offRampRate: rates.offRampRate.rate, order: { id: order.id, status: order.status }, delivered: test.delivered, webhook: payload.id, tampered }));
`;

const TYPED = `
import { createRampClient, type OfframpRequest, type TransactionDto } from "@ramp/sdk";
const ramp = createRampClient({ apiKey: "k", baseUrl: "http://127.0.0.1:1" });
const request: OfframpRequest = { accountNumber: "0123456789", bankCode: "000013", currency: "NGN", mint: "m", amount: 5 };
export const order: Promise<TransactionDto> = ramp.offramp.create(request);
// @ts-expect-error a currency the API does not take
export const wrong: OfframpRequest = { ...request, currency: "EUR" };
// @ts-expect-error transactions.export answers CSV text
export const rows: Promise<number> = ramp.transactions.export({ status: "COMPLETED" });
`;

let stack: Stack;
let project = "";
const run = (cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, timeout: 120_000 });

beforeAll(async () => {
  // Outside the repository: nothing above it can lend a workspace package or node_modules.
  project = mkdtempSync(join(tmpdir(), "ramp-sdk-consumer-"));
  const dist = join(project, "built");
  run(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "packages/sdk/scripts/build.ts"), dist],
    REPO_ROOT,
  );
  run("npm", ["pack", dist, "--pack-destination", project, "--silent"], project);
  const tarball = readdirSync(project).find((f) => f.endsWith(".tgz"));
  expect(tarball).toBeDefined();
  const app = join(project, "app");
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "integrator",
      private: true,
      type: "module",
      dependencies: { "@ramp/sdk": `file:../${tarball}` },
    }),
  );
  // --offline: the tarball is all it may use; a dependency on anything else would fail here.
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--silent"], app);
  stack = await startStack();
  await stack.setRate("NGN", 1650, 1580);
}, 240_000);
afterAll(async () => {
  await stack?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("the packed @ramp/sdk in a project of its own", () => {
  it("reads a rate, creates an offramp and verifies a signed webhook with plain node", async () => {
    const app = join(project, "app");
    writeFileSync(join(app, "main.mjs"), CONSUMER);
    const biz = await stack.createBusiness("Packed SDK Co");
    // Not execFileSync: the stack runs in this process, and must keep answering while the child runs.
    const { stdout: out } = await promisify(execFile)(process.execPath, ["main.mjs"], {
      cwd: app,
      timeout: 60_000,
      env: {
        ...process.env,
        RAMP_URL: stack.url,
        RAMP_KEY: biz.apiKey,
        RAMP_SECRET: biz.webhookSecret,
        OFFRAMP: JSON.stringify(SANDBOX_OFFRAMP),
      },
    });
    const result = JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
    expect(result.offRampRate).toBe(1580);
    expect(result.order.status).toBe("INIT");
    expect(result.delivered).toBe(true);
    expect(typeof result.webhook).toBe("string");
    expect(result.tampered).toBe("signature_mismatch");
  });

  it("typechecks an integrator's TypeScript against its declarations alone", () => {
    const app = join(project, "app");
    writeFileSync(join(app, "typed.ts"), TYPED);
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          typeRoots: [join(REPO_ROOT, "node_modules/@types")],
        },
        files: ["typed.ts"],
      }),
    );
    const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
    expect(() => run(process.execPath, [tsc, "-p", "tsconfig.json"], app)).not.toThrow();
  });
});
