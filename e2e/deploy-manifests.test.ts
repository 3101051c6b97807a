// The deployment artefacts a platform team runs: docker-compose.yml and the kustomize base in deploy/k8s.
// A variable a service's config schema does not know is silently ignored at run time, so a misspelt
// name in a manifest would deploy a service on its default; these tests catch that before anyone deploys.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BankingConfig } from "@ramp/banking";
import { ChainWatcherConfig } from "@ramp/chain-watcher";
import { ensureKustomize, REPO_ROOT, TOOLS_DIR } from "@ramp/devinfra";
import { GatewayConfig } from "@ramp/gateway";
import { OrdersConfig } from "@ramp/orders";
import { PricingConfig } from "@ramp/pricing";
import { configNames } from "@ramp/runtime";
import { WebhookDispatcherConfig } from "@ramp/webhook-dispatcher";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import type { z } from "zod";

const SCHEMAS: Record<string, z.ZodType> = {
  gateway: GatewayConfig,
  pricing: PricingConfig,
  banking: BankingConfig,
  orders: OrdersConfig,
  "chain-watcher": ChainWatcherConfig,
  "webhook-dispatcher": WebhookDispatcherConfig,
};
const SERVICES = Object.keys(SCHEMAS);

const acceptedNames = configNames;

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

interface ComposeService {
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  ports?: string[];
}

describe("docker-compose.yml", () => {
  const text = read("docker-compose.yml");
  const compose = parse(text, { merge: true }) as { services: Record<string, ComposeService> };

  it("runs every service with a health check, and publishes the gateway's port only", () => {
    expect(Object.keys(compose.services).sort()).toEqual([...SERVICES, "mongodb", "nats"].sort());
    for (const [name, svc] of Object.entries(compose.services)) {
      expect(svc.healthcheck?.test, name).toBeDefined();
      if (name !== "gateway") expect(svc.ports, name).toBeUndefined();
    }
    expect(compose.services.gateway?.ports).toEqual(["8080:8080"]);
  });

  it("gives each service only variables its config schema accepts, and one copy of each stream", () => {
    for (const name of SERVICES) {
      const env = compose.services[name]?.environment ?? {};
      const accepted = acceptedNames(SCHEMAS[name] as z.ZodType);
      expect(
        Object.keys(env).filter((k) => !accepted.includes(k)),
        name,
      ).toEqual([]);
      expect(env.NATS_STREAM_REPLICAS, name).toBe("1");
      expect(env.NATS_NKEY_SEED, name).toMatch(/^\$\{[A-Z_]+_NATS_NKEY_SEED:\?/);
    }
  });

  it("runs in production mode as shipped; the sandbox only with its overlay", () => {
    const sandbox = parse(read("deploy/compose.sandbox.yml"), { merge: true }) as {
      services: Record<string, ComposeService & { volumes?: string[] }>;
    };
    for (const name of SERVICES) {
      expect(compose.services[name]?.environment?.RAMP_SANDBOX, name).toBe("false");
      expect(sandbox.services[name]?.environment?.RAMP_SANDBOX, name).toBe("true");
    }
    expect(sandbox.services.nats?.volumes).toEqual([
      "./deploy/nats/nats.sandbox.conf:/etc/nats/nats.conf:ro",
    ]);
  });

  it("gives each service its own database URI, and the admin token to the gateway alone", () => {
    for (const name of SERVICES) {
      const env = compose.services[name]?.environment ?? {};
      const prefix = name.toUpperCase().replace(/-/g, "_");
      expect(env.MONGODB_URI, name).toMatch(new RegExp(`^\\$\\{${prefix}_MONGODB_URI:\\?`));
      if (name !== "gateway") expect(env.ADMIN_TOKEN, name).toBeUndefined();
    }
  });

  it("refuses to start with a secret missing: every substituted value is required", () => {
    const substitutions = [...text.matchAll(/\$\{([A-Z_]+)([^}]*)\}/g)];
    expect(substitutions.length).toBeGreaterThan(0);
    for (const [whole, , rest] of substitutions) expect(rest, whole).toMatch(/^:\?/);
  });
});

interface Container {
  name: string;
  ports?: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean };
}
interface Resource {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    scaleTargetRef?: { name: string };
    selector?: { matchLabels?: Record<string, string> };
    template?: {
      spec: { securityContext?: { runAsNonRoot?: boolean }; containers: Container[] };
    };
  };
}

const build = (dir: string) =>
  parseAllDocuments(
    execFileSync(ensureKustomize(TOOLS_DIR), ["build", dir], { cwd: REPO_ROOT, encoding: "utf8" }),
  ).map((d) => d.toJS() as Resource);

describe("deploy/k8s (kustomize base)", () => {
  const resources = build("deploy/k8s");
  const named = (kind: string, name: string) =>
    resources.find((r) => r.kind === kind && r.metadata.name === name);
  const deployments = resources.filter((r) => r.kind === "Deployment");

  it("deploys every service probed on its health port, with resources, as a non-root user", () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `ramp-${s}`).sort());
    for (const d of deployments) {
      const pod = d.spec?.template?.spec;
      expect(pod?.securityContext?.runAsNonRoot, d.metadata.name).toBe(true);
      const [c] = pod?.containers ?? [];
      expect(c, d.metadata.name).toBeDefined();
      if (!c) continue;
      const vars = Object.fromEntries(
        (c.envFrom ?? []).flatMap((f) =>
          Object.entries(named("ConfigMap", f.configMapRef?.name ?? "")?.data ?? {}),
        ),
      );
      const healthPort = c.ports?.find((p) => p.name === "health")?.containerPort;
      expect(healthPort, d.metadata.name).toBe(Number(vars.HEALTH_PORT));
      expect(c.readinessProbe?.httpGet, d.metadata.name).toEqual({ path: "/readyz", port: "health" });
      expect(c.livenessProbe?.httpGet, d.metadata.name).toEqual({ path: "/healthz", port: "health" });
      expect(c.resources?.requests?.memory && c.resources.limits?.memory, d.metadata.name).toBeTruthy();
      expect(c.resources?.requests?.cpu && c.resources.limits?.cpu, d.metadata.name).toBeTruthy();
      expect(c.securityContext?.allowPrivilegeEscalation, d.metadata.name).toBe(false);
    }
  });

  it("gives each service only variables its config schema accepts, its secrets from its own Secret", () => {
    for (const d of deployments) {
      const service = d.metadata.name.replace(/^ramp-/, "");
      const accepted = acceptedNames(SCHEMAS[service] as z.ZodType);
      const c = d.spec?.template?.spec.containers[0];
      const names = [...(c?.env ?? []).map((e) => e.name)];
      const secrets: string[] = [];
      for (const from of c?.envFrom ?? []) {
        const source = from.configMapRef
          ? named("ConfigMap", from.configMapRef.name)
          : named("Secret", from.secretRef?.name ?? "");
        expect(source, JSON.stringify(from)).toBeDefined();
        names.push(...Object.keys(source?.data ?? {}));
        if (from.secretRef) secrets.push(...Object.keys(source?.data ?? {}));
      }
      expect(
        names.filter((n) => !accepted.includes(n)),
        service,
      ).toEqual([]);
      expect(secrets, service).toContain("NATS_NKEY_SEED");
      expect(secrets, service).toContain("MONGODB_URI");
    }
  });

  it("keeps one replica of each service through voluntary disruptions, and autoscales the gateway", () => {
    for (const d of deployments) {
      const pdb = resources.find(
        (r) =>
          r.kind === "PodDisruptionBudget" &&
          JSON.stringify(r.spec?.selector?.matchLabels) === JSON.stringify(d.spec?.selector?.matchLabels),
      );
      expect(pdb, d.metadata.name).toBeDefined();
    }
    const hpas = resources.filter((r) => r.kind === "HorizontalPodAutoscaler");
    expect(hpas.map((h) => h.spec?.scaleTargetRef?.name)).toEqual(["ramp-gateway"]);
  });

  it("runs in production mode as built; the sandbox only with overlays/sandbox", () => {
    const common = resources.find((r) => r.kind === "ConfigMap" && r.metadata.name.startsWith("ramp-common"));
    expect(common?.data?.RAMP_SANDBOX).toBe("false");
    const sandbox = build("deploy/k8s/overlays/sandbox");
    const inSandbox = sandbox.find(
      (r) => r.kind === "ConfigMap" && r.metadata.name.startsWith("ramp-common"),
    );
    expect(inSandbox?.data?.RAMP_SANDBOX).toBe("true");
    expect(sandbox.filter((r) => r.kind === "Deployment")).toHaveLength(SERVICES.length);
  });

  it("the cluster overlay keeps three copies of every stream on NATS's official chart", () => {
    const overlay = parse(read("deploy/k8s/overlays/cluster/kustomization.yaml")) as {
      configMapGenerator: Array<{ name: string; behavior?: string; literals?: string[] }>;
      helmCharts: Array<{ name: string; repo: string; valuesFile: string }>;
    };
    const common = overlay.configMapGenerator.find((g) => g.name === "ramp-common");
    expect(common?.behavior).toBe("merge");
    expect(common?.literals).toContain("NATS_STREAM_REPLICAS=3");
    const [chart] = overlay.helmCharts;
    expect(chart?.repo).toBe("https://nats-io.github.io/k8s/helm/charts/");
    const values = parse(read(`deploy/k8s/overlays/cluster/${chart?.valuesFile}`)) as {
      config: { cluster: { enabled: boolean; replicas: number }; jetstream: { enabled: boolean } };
    };
    expect(values.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(values.config.jetstream.enabled).toBe(true);
  });
});
