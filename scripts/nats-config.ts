// `npm run nats:config`: rewrites the deployment's NATS configuration from contracts (a unit test checks
// it is current). `npm run nats:config -- --check` only says whether it is, and exits 1 when it is not.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY_NATS_CONFIG, REPO_ROOT, renderDeployNatsConfig } from "@ramp/devinfra";

const path = join(REPO_ROOT, DEPLOY_NATS_CONFIG);
if (process.argv.includes("--check")) {
  const current = readFileSync(path, "utf8") === renderDeployNatsConfig();
  process.stdout.write(
    current
      ? `${DEPLOY_NATS_CONFIG} is current\n`
      : `${DEPLOY_NATS_CONFIG} is stale: run npm run nats:config\n`,
  );
  process.exit(current ? 0 : 1);
}
writeFileSync(path, renderDeployNatsConfig());
process.stdout.write(`wrote ${DEPLOY_NATS_CONFIG}\n`);
