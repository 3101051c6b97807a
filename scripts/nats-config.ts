// `npm run nats:config`: rewrites the deployment's NATS configurations (production's and the sandbox's)
// from contracts (a unit test checks they are current). `npm run nats:config -- --check` only says whether
// they are, and exits 1 when one is not.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEPLOY_NATS_CONFIG,
  DEPLOY_NATS_SANDBOX_CONFIG,
  REPO_ROOT,
  renderDeployNatsConfig,
} from "@ramp/devinfra";

const files = [
  { file: DEPLOY_NATS_CONFIG, text: renderDeployNatsConfig(false) },
  { file: DEPLOY_NATS_SANDBOX_CONFIG, text: renderDeployNatsConfig(true) },
];
if (process.argv.includes("--check")) {
  let stale = 0;
  for (const { file, text } of files) {
    const current = readFileSync(join(REPO_ROOT, file), "utf8") === text;
    if (!current) stale++;
    process.stdout.write(current ? `${file} is current\n` : `${file} is stale: run npm run nats:config\n`);
  }
  process.exit(stale === 0 ? 0 : 1);
}
for (const { file, text } of files) {
  writeFileSync(join(REPO_ROOT, file), text);
  process.stdout.write(`wrote ${file}\n`);
}
