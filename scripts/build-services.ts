/**
 * Builds each service's bundle (`services/<name>/dist/main.mjs`), or only those named:
 * `node --import tsx scripts/build-services.ts [service …]`. `npm start` and the test stacks build
 * what is missing or stale by themselves; the container image builds its bundles with this.
 */
import { ensureServiceBundles } from "@ramp/devinfra";
import { SERVICES, type ServiceName } from "./launcher/plan.ts";

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(SERVICES as readonly string[]).includes(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown service(s): ${unknown.join(", ")}; services: ${SERVICES.join(", ")}\n`);
  process.exit(2);
}
await ensureServiceBundles(asked.length > 0 ? (asked as ServiceName[]) : SERVICES);
