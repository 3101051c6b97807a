export { type ConsoleClient, type ConsoleClientOptions, createConsoleClient, type Page } from "./console.ts";
export * from "./published.ts";
