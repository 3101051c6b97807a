// First, as in main.ts: tests and benchmarks that run chain-watcher in their own process load it here.
import "./chains/solana/quiet-bigint-buffer.ts";

export { createEvmAdapter, type EvmAdapter } from "./chains/evm/adapter.ts";
export { EVM_DEPOSIT_PATH, EVM_TREASURY_PATH, EvmKeyring } from "./chains/evm/hd.ts";
export { seedFromMnemonic } from "./chains/shared/seed.ts";
export { deriveSolanaTreasuryKeypair, solanaAddressFromSeed } from "./chains/solana/derive.ts";
export { deriveTonTreasuryWallet, tonAddressFromSeed } from "./chains/ton/derive.ts";
export { ChainWatcherConfig, DEV_MNEMONIC, loadChainWatcherConfig } from "./config.ts";
export { startChainWatcher } from "./service.ts";
