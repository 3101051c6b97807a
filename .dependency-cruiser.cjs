// `npm run check` and `npm test` run this (`npm run check:structure`): no import cycle anywhere, no
// import from one service into another, and inside each service no import running back up its floors.
//
// LAYERS lists each service's floors bottom first, as path patterns under services/<name>/src/. A file
// may import its own floor and the floors below it; every source file must sit on one floor. Tests
// (*.test.ts) are outside the floors: they may reach any fixture they need, but never make a cycle.

/** @type {Record<string, Array<[string, string]>>} service → [floor name, pattern] bottom → top */
const LAYERS = {
  banking: [
    ["rails", "rails/|identity/"],
    ["adapters", "(adapters|config)\\.ts$"],
    ["domain", "accounts/|payouts/|virtual-accounts/|catalogue/"],
    ["boot", "(service|main|index)\\.ts$"],
  ],
  "chain-watcher": [
    ["settings", "(networks|chain-settings|config)\\.ts$"],
    ["chains", "chains/"],
    ["prices", "prices/"],
    ["swaps", "swaps/"],
    ["tokens", "tokens/"],
    ["records", "allocation/|deposits/"],
    ["loops", "transfers/|watcher/"],
    ["money", "consolidation/|treasury/"],
    ["sandbox", "sandbox-deposit\\.ts$"],
    ["boot", "(service|main|index)\\.ts$"],
  ],
  gateway: [
    ["kit", "(config|body|csv|reply|readiness|console-path)\\.ts$"],
    [
      "domain",
      "people/|audit/audit-log\\.ts$|auth/api-keys\\.ts$|idempotency/(fingerprint|idempotency-store|secret-fields)\\.ts$",
    ],
    [
      "http",
      "(env|errors|validate|register|rate-limit|rate-limit-store|shed|split-router)\\.ts$|[a-z-]+/middleware\\.ts$|auth/console\\.ts$",
    ],
    ["routes", "routes/"],
    ["boot", "(app|service|main|index)\\.ts$"],
  ],
  orders: [
    ["base", "config\\.ts$|idempotency/"],
    ["pricing", "pricing/"],
    ["quotes", "quotes/"],
    ["orders", "orders/"],
    ["payments", "payments/"],
    ["money", "money/"],
    ["lifecycle", "lifecycle/"],
    ["sandbox", "sandbox/"],
    ["boot", "(service|main|index)\\.ts$"],
  ],
  pricing: [
    ["rates", "(config|rates)\\.ts$"],
    ["store", "store\\.ts$"],
    ["boot", "(service|main|index)\\.ts$"],
  ],
  "webhook-dispatcher": [
    ["parts", "(config|ssrf|secrets|work-queue|lanes|deliveries-store)\\.ts$"],
    ["stores", "(sender|config-store|destinations|endpoint-health)\\.ts$"],
    ["attempts", "(attempt|attempt-log)\\.ts$"],
    ["delivery", "(deliver|handlers)\\.ts$"],
    ["scheduling", "(scheduler|endpoint-queue)\\.ts$"],
    ["boot", "(service|main|index)\\.ts$"],
  ],
};

const TEST = "\\.test\\.ts$";
const src = (service, pattern) => `^services/${service}/src/(${pattern})`;

function floorRules(service, floors) {
  const rules = [];
  floors.forEach(([name, pattern], i) => {
    const above = floors.slice(i + 1);
    if (above.length === 0) return;
    rules.push({
      name: `${service}-floors`,
      comment: `${service}: ${name} may not import a floor above it (${above.map(([n]) => n).join(", ")})`,
      severity: "error",
      from: { path: src(service, pattern), pathNot: TEST },
      to: { path: above.map(([, p]) => src(service, p)) },
    });
  });
  rules.push({
    name: `${service}-unfloored`,
    comment: `${service}: every source file sits on one of its floors (add it to LAYERS in .dependency-cruiser.cjs)`,
    severity: "error",
    from: { path: `^services/${service}/src/`, pathNot: [TEST, ...floors.map(([, p]) => src(service, p))] },
    to: {},
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle: split out what both sides need, or turn one side into an argument",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-cross-service",
      comment: "a service reaches another only through subjects named in @ramp/contracts",
      severity: "error",
      from: { path: "^services/([^/]+)/src/" },
      to: { path: "^services/", pathNot: "^services/$1/" },
    },
    {
      name: "packages-below-services",
      comment: "packages serve services, never the other way round",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^services/" },
    },
    {
      name: "devinfra-below-runtime",
      comment:
        "runtime's tests start their NATS and database with devinfra, so devinfra never imports runtime",
      severity: "error",
      from: { path: "^packages/devinfra/" },
      to: { path: "^packages/runtime/" },
    },
    ...Object.entries(LAYERS).flatMap(([service, floors]) => floorRules(service, floors)),
  ],
  options: {
    // Type-only imports count: a cycle through types is still a cycle in the design.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules|/dist/" },
    tsConfig: { fileName: "tsconfig.base.json" },
    // A workspace package resolves through its package.json exports to its src/, as tsc does.
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "types", "default"] },
  },
};
