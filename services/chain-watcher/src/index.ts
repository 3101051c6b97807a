export { ChainWatcherConfig, loadChainWatcherConfig } from "./config.ts";
export { startChainWatcher } from "./service.ts";
