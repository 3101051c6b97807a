// What `npm start` prints once everything answers.
import type { SandboxSeed } from "./seed.ts";

export function banner(opts: {
  seconds: number;
  gateways: readonly string[];
  replicas: number;
  adminToken: string;
  seed: SandboxSeed | undefined;
}): string {
  const [first, ...more] = opts.gateways;
  const lines = [
    "",
    `Ramp is running (${opts.seconds.toFixed(1)} s, ${opts.replicas} process(es) per service).`,
    `  API:            ${first}  (reference: ${first}/docs, OpenAPI: ${first}/openapi.json)`,
    ...more.map((url) => `  Gateway replica: ${url}`),
  ];
  if (opts.seed) lines.push(`  Sandbox key:    ${opts.seed.apiKey}`);
  lines.push(`  Admin token:    ${opts.adminToken}`);
  if (opts.seed) {
    lines.push(
      `  Try:            curl -H 'x-api-key: ${opts.seed.apiKey}' '${first}/pub/v2/rate?currency=NGN'`,
    );
  }
  lines.push("  Stop with Ctrl-C.", "");
  return lines.join("\n");
}
