import { runMain } from "@ramp/runtime";
import { loadChainWatcherConfig } from "./config.ts";
import { startChainWatcher } from "./service.ts";

runMain("chain-watcher", () => startChainWatcher(loadChainWatcherConfig(process.env)));
