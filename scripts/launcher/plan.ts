// Which processes `npm start` runs and the environment each one gets.

export const SERVICES = [
  "pricing",
  "banking",
  "chain-watcher",
  "orders",
  "webhook-dispatcher",
  "gateway",
] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface LauncherOptions {
  /** The first gateway's port; replica i listens on port + i (Node 20 has no SO_REUSEPORT). */
  port: number;
  replicas: number;
  /** First health port; every process gets its own, counting up from here. Unset → no health servers. */
  healthPort: number | undefined;
  adminToken: string;
  sandbox: string;
  logLevel: string;
  /** Start with empty stores instead of the last start's (`npm start -- --reset` or RAMP_RESET=1). */
  reset: boolean;
}

export interface ProcessSpec {
  service: ServiceName;
  /** `orders`, or `orders#2` when several replicas run. */
  label: string;
  env: Record<string, string>;
}

export interface InfraUrls {
  natsUrl: string;
  mongoUrl: string;
  /** Each service's own NATS nkey seed; a service never sees another's. */
  natsSeeds: Partial<Record<ServiceName, string>>;
  /** Every service's public nkey (NATS_PEER_KEYS), so each can check who signed what it consumes. */
  natsPeerKeys?: string;
}

/**
 * Per-service variables beyond the shared ones: the place for anything one service needs that the
 * others must not see (such as its own NATS credentials).
 */
export function serviceEnv(service: ServiceName, infra: InfraUrls): Record<string, string> {
  const seed = infra.natsSeeds[service];
  if (!seed) return {};
  return { NATS_NKEY_SEED: seed, ...(infra.natsPeerKeys ? { NATS_PEER_KEYS: infra.natsPeerKeys } : {}) };
}

export function planProcesses(opts: LauncherOptions, infra: InfraUrls): ProcessSpec[] {
  const specs: ProcessSpec[] = [];
  for (const service of SERVICES) {
    for (let r = 0; r < opts.replicas; r++) {
      const env: Record<string, string> = {
        NATS_URL: infra.natsUrl,
        MONGODB_URI: infra.mongoUrl,
        RAMP_SANDBOX: opts.sandbox,
        LOG_LEVEL: opts.logLevel,
        ...serviceEnv(service, infra),
      };
      if (service === "gateway") {
        env.PORT = String(opts.port + r);
        env.ADMIN_TOKEN = opts.adminToken;
      }
      if (opts.healthPort !== undefined) env.HEALTH_PORT = String(opts.healthPort + specs.length);
      specs.push({ service, label: opts.replicas > 1 ? `${service}#${r + 1}` : service, env });
    }
  }
  return specs;
}

/** Every gateway replica's base URL, in replica order. */
export function gatewayUrls(specs: readonly ProcessSpec[]): string[] {
  return specs.filter((s) => s.service === "gateway").map((s) => `http://127.0.0.1:${s.env.PORT}`);
}

/** Every port the planned processes listen on: each gateway's, then each health server's. */
export function listenPorts(specs: readonly ProcessSpec[]): number[] {
  const ports = specs.filter((s) => s.service === "gateway").map((s) => Number(s.env.PORT));
  return [...ports, ...specs.flatMap((s) => (s.env.HEALTH_PORT ? [Number(s.env.HEALTH_PORT)] : []))];
}
