// First, so that no module below loads spl-token before the warning it triggers is filtered.
import "./chains/solana/quiet-bigint-buffer.ts";
import { runMain } from "@ramp/runtime";
import { loadChainWatcherConfig } from "./config.ts";
import { startChainWatcher } from "./service.ts";

runMain("chain-watcher", () => startChainWatcher(loadChainWatcherConfig(process.env)));
