import { describe, expect, it } from "vitest";
import { launcherOptions } from "./options.ts";
import { gatewayUrls, listenPorts, planProcesses, SERVICES } from "./plan.ts";

const infra = {
  natsUrl: "nats://127.0.0.1:4222",
  mongoUrl: "mongodb://127.0.0.1:27017/",
  natsSeeds: { orders: "SU-orders-seed", gateway: "SU-gateway-seed" },
};

describe("launcher plan", () => {
  it("runs one process per service by default, the gateway on PORT", () => {
    const specs = planProcesses(launcherOptions({ PORT: "9000", ADMIN_TOKEN: "t".repeat(20) }), infra);
    expect(specs.map((s) => s.label)).toEqual([...SERVICES]);
    expect(gatewayUrls(specs)).toEqual(["http://127.0.0.1:9000"]);
    expect(specs.every((s) => s.env.HEALTH_PORT === undefined)).toBe(true);
  });

  it("gives each service its own NATS seed and no other's", () => {
    const specs = planProcesses(launcherOptions({ ADMIN_TOKEN: "t".repeat(20) }), infra);
    expect(specs.find((s) => s.service === "orders")?.env.NATS_NKEY_SEED).toBe("SU-orders-seed");
    expect(specs.find((s) => s.service === "pricing")?.env.NATS_NKEY_SEED).toBeUndefined();
  });

  it("with RAMP_REPLICAS=N runs N of each, gateways on consecutive ports, every health port distinct", () => {
    const specs = planProcesses(
      launcherOptions({ PORT: "9000", RAMP_REPLICAS: "3", HEALTH_PORT: "9100" }),
      infra,
    );
    expect(specs).toHaveLength(3 * SERVICES.length);
    expect(specs.filter((s) => s.service === "orders").map((s) => s.label)).toEqual([
      "orders#1",
      "orders#2",
      "orders#3",
    ]);
    expect(gatewayUrls(specs)).toEqual([
      "http://127.0.0.1:9000",
      "http://127.0.0.1:9001",
      "http://127.0.0.1:9002",
    ]);
    const health = specs.map((s) => s.env.HEALTH_PORT);
    expect(new Set(health).size).toBe(specs.length);
    expect(specs.filter((s) => s.service !== "gateway").every((s) => s.env.PORT === undefined)).toBe(true);
  });

  it("refuses a replica count that is not a whole number", () => {
    expect(() => launcherOptions({ RAMP_REPLICAS: "0" })).toThrow(/RAMP_REPLICAS/);
    expect(() => launcherOptions({ RAMP_REPLICAS: "two" })).toThrow(/RAMP_REPLICAS/);
  });

  it("lists every port the processes listen on, checked free before anything starts", () => {
    const specs = planProcesses(
      launcherOptions({ PORT: "9000", RAMP_REPLICAS: "2", HEALTH_PORT: "9100" }),
      infra,
    );
    const health = Array.from({ length: 2 * SERVICES.length }, (_, i) => 9100 + i);
    expect(listenPorts(specs)).toEqual([9000, 9001, ...health]);
  });

  it("starts clean only when asked: --reset or RAMP_RESET=1; refuses other arguments", () => {
    expect(launcherOptions({}).reset).toBe(false);
    expect(launcherOptions({}, ["--reset"]).reset).toBe(true);
    expect(launcherOptions({ RAMP_RESET: "1" }).reset).toBe(true);
    expect(() => launcherOptions({ RAMP_RESET: "yes" })).toThrow(/RAMP_RESET/);
    expect(() => launcherOptions({}, ["--rest"])).toThrow(/--rest/);
  });
});
