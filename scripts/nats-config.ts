// `npm run nats:config`: rewrites the deployment's NATS configuration from contracts (a unit test checks it is current).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY_NATS_CONFIG, REPO_ROOT, renderDeployNatsConfig } from "@ramp/devinfra";

writeFileSync(join(REPO_ROOT, DEPLOY_NATS_CONFIG), renderDeployNatsConfig());
process.stdout.write(`wrote ${DEPLOY_NATS_CONFIG}\n`);
