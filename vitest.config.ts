import { defineConfig } from "vitest/config";

/** One unit project (next to the code, no infrastructure) and one integration project (real NATS + database). */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          // Unit tests first (fast feedback), then the integration project with its own worker limit.
          sequence: { groupOrder: 0 },
          include: [
            "packages/*/src/**/*.test.ts",
            "services/*/src/**/*.test.ts",
            "scripts/**/*.test.ts",
            "bench/**/*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        test: {
          name: "integration",
          sequence: { groupOrder: 1 },
          include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["e2e/support/global-setup.ts"],
          // Connections "as a service" get the runtime's identity and signing (devinfra has neither).
          setupFiles: ["e2e/support/service-connections.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Two cores: keep the number of whole stacks running at once small.
          maxWorkers: 2,
        },
      },
    ],
  },
});
