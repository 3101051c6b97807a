export { EvmAdapter } from "./chains/evm/adapter.ts";
export { EVM_DEPOSIT_PATH, EVM_TREASURY_PATH, EvmKeyring } from "./chains/evm/hd.ts";
export { deriveSolanaTreasuryKeypair } from "./chains/solana/derive.ts";
export { deriveTonTreasuryWallet } from "./chains/ton/derive.ts";
export { ChainWatcherConfig, DEV_MNEMONIC, loadChainWatcherConfig } from "./config.ts";
export { startChainWatcher } from "./service.ts";
