export * from "./binaries.ts";
export * from "./infra.ts";
export * from "./kept-data.ts";
export * from "./nats-auth.ts";
export * from "./nats-cluster.ts";
export * from "./postgres.ts";
export * from "./processes.ts";
export * from "./stale-runs.ts";
