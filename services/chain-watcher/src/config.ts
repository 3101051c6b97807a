import { BaseConfig, loadConfig } from "@ramp/runtime";
import type { z } from "zod";

export const ChainWatcherConfig = BaseConfig.extend({});
export type ChainWatcherConfig = z.infer<typeof ChainWatcherConfig>;
export const loadChainWatcherConfig = (env: Record<string, string | undefined>) =>
  loadConfig(ChainWatcherConfig, env);
