// What `npm start` prints once everything answers.

import type { ConsoleSignIn } from "./console-people.ts";
import { BANK_CODE_FORMAT, SANDBOX_OFFRAMP, sandboxOfframpCommands } from "./sandbox-example.ts";
import type { SandboxSeed } from "./seed.ts";

function wrap(text: string, width: number): string[] {
  const lines = [""];
  for (const word of text.split(" ")) {
    const last = lines.length - 1;
    if (lines[last] && `${lines[last]} ${word}`.length > width) lines.push(word);
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
  }
  return lines;
}

/** The guide's offramp with this stack's URL and key written in, ready to paste into a shell. */
function sandboxExample(url: string, apiKey: string): string[] {
  const { amount, chain, accountNumber, bankCode } = SANDBOX_OFFRAMP;
  const indent = (command: string) => command.replace(/^/gm, "    ");
  const [create, deposit, lookup] = sandboxOfframpCommands(url, apiKey).map(indent);
  return [
    "",
    `  Try an offramp in the sandbox: ${amount} USDC on ${chain} paid out in naira to account ${accountNumber}`,
    `  at bank ${bankCode} (needs curl and jq). Create the order, keeping its id in $ORDER:`,
    create ?? "",
    "  stand in for the payer's token transfer (202 at once):",
    deposit ?? "",
    "  and look the order up until its status is COMPLETED (PROCESSING while the payout runs):",
    lookup ?? "",
    ...wrap(`${BANK_CODE_FORMAT}.`, 100).map((line) => `  ${line}`),
    "  Onramps, payments, webhooks and errors: docs/integrator-guide.md",
  ];
}

/** What this start did with the stores: found none, reused the last start's, or removed them (--reset). */
export type DataState = "new" | "kept" | "reset";

const DATA_STATE: Record<DataState, string> = {
  new: "new (first start here)",
  kept: "kept from the last start (npm start -- --reset starts clean)",
  reset: "reset: started clean (--reset)",
};

export function banner(opts: {
  seconds: number;
  gateways: readonly string[];
  replicas: number;
  adminToken: string;
  seed: SandboxSeed | undefined;
  /** The console's sandbox sign-ins, printed with their password. */
  console?: readonly ConsoleSignIn[];
  data: { state: DataState; dir: string };
}): string {
  const [first = "", ...more] = opts.gateways;
  const lines = [
    "",
    `Ramp is running (${opts.seconds.toFixed(1)} s, ${opts.replicas} process(es) per service).`,
    `  API:            ${first}  (reference: ${first}/docs, OpenAPI: ${first}/openapi.json)`,
    `  Console:        ${first}/console/${opts.console?.length ? "  (sign in with a Console line below)" : ""}`,
    ...more.map((url) => `  Gateway replica: ${url}`),
  ];
  lines.push(`  Data:           ${DATA_STATE[opts.data.state]}, in ${opts.data.dir}`);
  if (opts.seed) {
    lines.push(`  Sandbox key:    ${opts.seed.apiKey}`);
    lines.push(`  Webhook secret: ${opts.seed.webhookSecret}  (the key's; the same after a restart)`);
  }
  lines.push(`  Admin token:    ${opts.adminToken}`);
  for (const p of opts.console ?? []) {
    lines.push(
      `  Console ${p.role}:${" ".repeat(7 - p.role.length)}${p.email} / ${p.password}  (POST ${first}/console/v1/session)`,
    );
  }
  if (opts.seed) lines.push(...sandboxExample(first, opts.seed.apiKey));
  lines.push("", "  Stop with Ctrl-C.", "");
  return lines.join("\n");
}
