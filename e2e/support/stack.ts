import { randomBytes } from "node:crypto";
import { loadBankingConfig, startBanking } from "@ramp/banking";
import { loadChainWatcherConfig, startChainWatcher } from "@ramp/chain-watcher";
import { startTestNats } from "@ramp/devinfra/testing";
import { loadGatewayConfig, startGateway } from "@ramp/gateway";
import { loadOrdersConfig, startOrders } from "@ramp/orders";
import { loadPricingConfig, startPricing } from "@ramp/pricing";
import type { Stoppable } from "@ramp/runtime";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { type Db, MongoClient } from "mongodb";
import { inject } from "vitest";

type Env = Record<string, string | undefined>;

const starters = {
  pricing: (env: Env) => startPricing(loadPricingConfig(env)),
  banking: (env: Env) => startBanking(loadBankingConfig(env)),
  orders: (env: Env) => startOrders(loadOrdersConfig(env)),
  "chain-watcher": (env: Env) => startChainWatcher(loadChainWatcherConfig(env)),
  "webhook-dispatcher": (env: Env) => startWebhookDispatcher(loadWebhookDispatcherConfig(env)),
} satisfies Record<string, (env: Env) => Promise<Stoppable>>;
export type ServiceName = keyof typeof starters | "gateway";

export interface StackOptions {
  /** Services to start; default all six. */
  services?: ServiceName[];
  env?: Env;
  serviceEnv?: Partial<Record<ServiceName, Env>>;
}

export const ADMIN_TOKEN = "test-admin-token-0123456789";

/**
 * The whole system in-process against real NATS and a real MongoDB-wire database.
 * Each stack has its own NATS server and database names, so test files never see each other.
 */
export async function startStack(opts: StackOptions = {}) {
  const id = randomBytes(4).toString("hex");
  const nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  const envFor = (name: ServiceName): Env => ({
    ...nats.envFor(name),
    MONGODB_URI: inject("mongoUrl"),
    MONGODB_DATABASE: `t${id}_${name.replace(/-/g, "_")}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    RAMP_SANDBOX: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    // Many stacks share this machine's cores: a deposit applied a second late in a busy moment must not
    // turn the next sandbox deposit of a test about something else into a 503. The refusal has its own
    // test (sandbox-backpressure.test.ts).
    ...(name === "orders" ? { SANDBOX_DEPOSIT_MAX_LAG_MS: "0" } : {}),
    ...opts.env,
    ...opts.serviceEnv?.[name],
  });
  const running = new Map<ServiceName, Stoppable>();
  let mongo: MongoClient | undefined;
  let gatewayUrl = "";

  /** Starts one instance of a service; a gateway listens on a port of its own. */
  async function launch(name: ServiceName): Promise<Stoppable & { port?: number }> {
    if (name !== "gateway") return starters[name](envFor(name));
    return startGateway(
      loadGatewayConfig({
        ...envFor("gateway"),
        PORT: "0",
        ADMIN_TOKEN,
        RATE_LIMIT_PER_SECOND: "1000",
        RATE_LIMIT_BURST: "2000",
        ...opts.serviceEnv?.gateway,
      }),
    );
  }

  async function start(name: ServiceName) {
    if (running.has(name)) return;
    const svc = await launch(name);
    if (svc.port !== undefined) gatewayUrl = `http://127.0.0.1:${svc.port}`;
    running.set(name, svc);
  }

  async function stop(name: ServiceName) {
    const svc = running.get(name);
    running.delete(name);
    await svc?.stop();
  }

  const names =
    opts.services ??
    (["pricing", "banking", "chain-watcher", "orders", "webhook-dispatcher", "gateway"] as ServiceName[]);
  await Promise.all(names.map(start));

  const http = httpClient(() => gatewayUrl);
  const { request, admin } = http;
  const replicas: Stoppable[] = [];

  return {
    id,
    natsUrl: nats.url,
    /** A NATS connection with one service's credentials: it may do exactly what that service may. */
    connectAs: nats.connectAs,
    /** NATS_URL and a service's own NATS_NKEY_SEED, for tests that start a service themselves. */
    natsEnv: nats.envFor,
    get url() {
      return gatewayUrl;
    },
    start,
    stop,
    request,
    admin,
    client: http.client,
    /**
     * One more instance of a service on the same NATS and database, as a deployment with N replicas runs
     * it; stopped by close(). A gateway replica comes with HTTP helpers bound to its own port.
     */
    async replica(name: ServiceName) {
      const svc = await launch(name);
      replicas.push(svc);
      const url = `http://127.0.0.1:${svc.port ?? 0}`;
      return { ...httpClient(() => url), url, stop: () => svc.stop() };
    },
    /** Restarts the stack's own nats-server on the same port and store: every service sees a reconnect. */
    restartNats: () => nats.restart(),
    async createBusiness(
      name: string,
      feeBps = 0,
    ): Promise<{ id: string; apiKey: string; webhookSecret: string }> {
      const res = await admin("POST", "/businesses", { name, feeBps });
      if (res.status !== 201) throw new Error(`create business: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async setRate(currency: string, onRamp: number, offRamp: number) {
      const res = await admin("PUT", `/rates/${currency}`, { onRamp, offRamp });
      if (res.status !== 200) throw new Error(`set rate: ${res.status} ${JSON.stringify(res.body)}`);
    },
    /** A service's own database, for tests that assert what was (or was not) stored. */
    async db(name: ServiceName): Promise<Db> {
      mongo ??= await MongoClient.connect(inject("mongoUrl"));
      return mongo.db(`t${id}_${name.replace(/-/g, "_")}`);
    },
    /** How many inbound funds (fiat or chain deposits) orders recorded against an order: "credited once". */
    async fundsRecorded(orderId: string): Promise<number> {
      return (await this.db("orders")).collection("received_funds").countDocuments({ orderId });
    },
    async close() {
      for (const svc of replicas.reverse()) await svc.stop();
      for (const name of [...running.keys()].reverse()) await stop(name);
      await mongo?.close();
      await nats.stop();
    },
  };
}
export type Stack = Awaited<ReturnType<typeof startStack>>;

/** HTTP helpers against one gateway; `base` is read per call, so a restarted gateway is followed. */
function httpClient(base: () => string) {
  const request = async (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { "content-type": "application/json", ...init.headers },
      ...(init.body !== undefined
        ? { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }
        : {}),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON; keep the text
    }
    return { status: res.status, body: body as any, headers: res.headers };
  };

  const admin = (method: string, path: string, body?: unknown) =>
    request(method, `/admin/v1${path}`, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  /** A client bound to one API key. */
  const client = (apiKey: string) => {
    const h = { "x-api-key": apiKey };
    return {
      get: (path: string) => request("GET", path, { headers: h }),
      post: (path: string, body?: unknown) => request("POST", path, { body, headers: h }),
      patch: (path: string, body?: unknown) => request("PATCH", path, { body, headers: h }),
    };
  };
  return { request, admin, client };
}

export { eventually } from "@ramp/devinfra/testing";
