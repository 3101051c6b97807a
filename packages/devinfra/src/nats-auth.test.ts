import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { natsPermissions, SANDBOX_RPCS, SERVICE_NAMES, type ServiceName } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./infra.ts";
import {
  createNatsCredentials,
  DEPLOY_NATS_CONFIG,
  DEPLOY_NATS_SANDBOX_CONFIG,
  keptNatsCredentials,
  type NatsCredentials,
  type NkeyRef,
  natsNkeyEnv,
  natsSeedEnv,
  renderDeployNatsConfig,
  renderNatsConfig,
} from "./nats-auth.ts";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const publicKeys = (creds: NatsCredentials) =>
  Object.fromEntries(SERVICE_NAMES.map((s) => [s, { publicKey: creds[s].publicKey }])) as Record<
    ServiceName,
    NkeyRef
  >;

describe("nats-server configuration", () => {
  it("the committed deployment configs are what contracts produce now (npm run nats:config)", () => {
    expect(read(DEPLOY_NATS_CONFIG)).toBe(renderDeployNatsConfig(false));
    expect(read(DEPLOY_NATS_SANDBOX_CONFIG)).toBe(renderDeployNatsConfig(true));
  });

  it("grants the sandbox's deposit subjects in the sandbox's config only, and the streams to no gateway or pricing", () => {
    for (const { subject } of SANDBOX_RPCS) {
      expect(read(DEPLOY_NATS_CONFIG)).not.toContain(subject);
      expect(read(DEPLOY_NATS_SANDBOX_CONFIG)).toContain(subject);
    }
    for (const svc of ["gateway", "pricing"] as const) {
      expect(natsPermissions(svc).publish.allow.filter((s) => s.includes("RAMP_EVENTS"))).toEqual([]);
    }
    expect(natsPermissions("orders").publish.allow).toContain("$JS.API.STREAM.INFO.RAMP_EVENTS");
  });

  it("gives the server public keys only, never a seed", () => {
    const creds = createNatsCredentials();
    const services = publicKeys(creds);
    const conf = renderNatsConfig({ listen: "127.0.0.1:4222", storeDir: "/tmp/x", services });
    for (const svc of SERVICE_NAMES) {
      expect(conf).toContain(`nkey: "${creds[svc].publicKey}"`);
      expect(conf).not.toContain(creds[svc].seed);
    }
    expect(conf).not.toMatch(/no_auth_user|password/);
  });

  it("makes one cluster node of the same users: its name, its route port and the other nodes' routes", () => {
    const creds = createNatsCredentials();
    const services = publicKeys(creds);
    const single = renderNatsConfig({ listen: "127.0.0.1:4222", storeDir: "/tmp/x", services });
    const node = renderNatsConfig({
      listen: "127.0.0.1:4222",
      storeDir: "/tmp/x",
      services,
      cluster: { serverName: "n1", name: "ramp", listen: "127.0.0.1:6222", routes: ["127.0.0.1:6223"] },
    });
    expect(node).toContain('server_name: "n1"');
    expect(node).toContain('listen: "127.0.0.1:6222"');
    expect(node).toContain('"nats-route://127.0.0.1:6223"');
    expect(node).toContain(single.slice(single.indexOf("authorization {")));
  });
});

describe("docker compose", () => {
  const compose = read("docker-compose.yml");
  const local = read("deploy/compose.local-infra.yml");

  it("hands NATS every service's public key and each service its own seed, with no defaults", () => {
    for (const svc of SERVICE_NAMES) {
      expect(compose).toContain(`${natsNkeyEnv(svc)}: \${${natsNkeyEnv(svc)}:?`);
      expect(local).toContain(`${natsNkeyEnv(svc)}: \${${natsNkeyEnv(svc)}:?`);
      expect(compose).toContain(`NATS_NKEY_SEED: \${${natsSeedEnv(svc)}:?`);
    }
    expect(compose).toContain("ADMIN_TOKEN: ${ADMIN_TOKEN:?");
    expect(compose).not.toMatch(/:-/);
  });

  it("publishes only the gateway's port; local infrastructure only on 127.0.0.1", () => {
    expect([...compose.matchAll(/ports: \[(.*)\]/g)].map((m) => m[1])).toEqual(['"8080:8080"']);
    const localPorts = [...local.matchAll(/ports: \[(.*)\]/g)].map((m) => m[1]);
    expect(localPorts).toEqual(['"127.0.0.1:4222:4222"', '"127.0.0.1:27017:27017"']);
  });
});

describe("a kept NATS store's credentials", () => {
  it("are made once, readable by their owner alone, and the same at the next start", () => {
    const dir = mkdtempSync(join(tmpdir(), "ramp-kept-nats-"));
    try {
      const first = keptNatsCredentials(join(dir, "nats"));
      expect(statSync(join(dir, "nats", "credentials.json")).mode & 0o777).toBe(0o600);
      const again = keptNatsCredentials(join(dir, "nats"));
      for (const svc of SERVICE_NAMES) {
        expect(again[svc].publicKey).toBe(first[svc].publicKey);
        expect(again[svc].seed).toBe(first[svc].seed);
      }
      expect(keptNatsCredentials(join(dir, "other")).gateway.publicKey).not.toBe(first.gateway.publicKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
