import { bootService } from "@ramp/runtime";
import type { ChainWatcherConfig } from "./config.ts";

export async function startChainWatcher(config: ChainWatcherConfig) {
  return bootService("chain-watcher", config, async () => []);
}
