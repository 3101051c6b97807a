// The `@ramp/devinfra/ton` entry: the sandbox TON chain and the jettons tests mint on it.
export * from "./ton-jetton.ts";
export * from "./ton-sandbox-rpc.ts";
