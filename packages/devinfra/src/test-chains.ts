/** Whole local chains for tests of the running services: LiteSVM and @ton/sandbox behind loopback RPC. */
export * from "./solana-litesvm-chain.ts";
export * from "./ton-sandbox-chain.ts";
