export { BankingConfig, loadBankingConfig } from "./config.ts";
export { startBanking } from "./service.ts";
