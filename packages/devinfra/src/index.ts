export * from "./binaries.ts";
export * from "./infra.ts";
export * from "./processes.ts";
