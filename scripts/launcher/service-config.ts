// Each service's environment and configuration, settled before any service starts: a service sees only
// its own variables, and every service's configuration is checked at once, so one error names every
// problem (a refusal by the first service to start would hide the others', one restart per problem).
import { BankingConfig, loadBankingConfig } from "@ramp/banking/config";
import { ChainWatcherConfig, loadChainWatcherConfig } from "@ramp/chain-watcher/config";
import { withoutNatsSeeds } from "@ramp/devinfra";
import { GatewayConfig, loadGatewayConfig } from "@ramp/gateway/config";
import { loadOrdersConfig, OrdersConfig } from "@ramp/orders/config";
import { loadPricingConfig, PricingConfig } from "@ramp/pricing/config";
import { ConfigError, combinedConfigError, configNames } from "@ramp/runtime";
import { loadWebhookDispatcherConfig, WebhookDispatcherConfig } from "@ramp/webhook-dispatcher/config";
import type { z } from "zod";
import type { ProcessSpec, ServiceName } from "./plan.ts";

type Env = Record<string, string | undefined>;

const CONFIGS: Record<ServiceName, { schema: z.ZodType; load: (env: Env) => unknown }> = {
  gateway: { schema: GatewayConfig, load: loadGatewayConfig },
  pricing: { schema: PricingConfig, load: loadPricingConfig },
  banking: { schema: BankingConfig, load: loadBankingConfig },
  orders: { schema: OrdersConfig, load: loadOrdersConfig },
  "chain-watcher": { schema: ChainWatcherConfig, load: loadChainWatcherConfig },
  "webhook-dispatcher": { schema: WebhookDispatcherConfig, load: loadWebhookDispatcherConfig },
};

const namesOf = Object.fromEntries(
  Object.entries(CONFIGS).map(([service, c]) => [service, new Set(configNames(c.schema))]),
) as Record<ServiceName, Set<string>>;
const everyServicesNames = new Set(Object.values(namesOf).flatMap((names) => [...names]));

/**
 * A process's whole environment: what the launcher runs in (PATH, HOME, …) without any service's
 * settings or NATS seeds, then the settings of the launcher's environment this service reads (so
 * ADMIN_TOKEN reaches the gateway alone, KYC_PEPPER banking alone), then what the plan gives it.
 */
export function ownEnvironment(spec: ProcessSpec, launcherEnv: Env): Record<string, string> {
  const env: Record<string, string> = {};
  const own = namesOf[spec.service];
  for (const [name, value] of Object.entries(withoutNatsSeeds(launcherEnv))) {
    if (value !== undefined && (own.has(name) || !everyServicesNames.has(name))) env[name] = value;
  }
  return { ...env, ...spec.env };
}

/** Loads every service's configuration from the environment it will run with; throws once, naming all. */
export function checkEveryConfig(specs: readonly ProcessSpec[]): void {
  const refused = new Map<string, ConfigError>();
  for (const spec of specs) {
    try {
      CONFIGS[spec.service].load(spec.env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      // Replicas of a service differ in ports only: one report per service.
      if (!refused.has(spec.service)) refused.set(spec.service, err);
    }
  }
  if (refused.size > 0) {
    throw combinedConfigError(`configuration refused, so no service was started:`, refused);
  }
}

/** The processes to start, each with its own whole environment, once every configuration is accepted. */
export function prepareServices(specs: readonly ProcessSpec[], launcherEnv: Env): ProcessSpec[] {
  const prepared = specs.map((spec) => ({ ...spec, env: ownEnvironment(spec, launcherEnv) }));
  checkEveryConfig(prepared);
  return prepared;
}
