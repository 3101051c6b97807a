import { bootService } from "@ramp/runtime";
import type { BankingConfig } from "./config.ts";

export async function startBanking(config: BankingConfig) {
  return bootService("banking", config, async () => []);
}
