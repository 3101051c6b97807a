import { runMain } from "@ramp/runtime";
import { loadBankingConfig } from "./config.ts";
import { startBanking } from "./service.ts";

runMain("banking", () => startBanking(loadBankingConfig(process.env)));
