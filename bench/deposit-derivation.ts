/**
 * Cost of one EVM deposit address: the public child step from the deposit branch's extended public key
 * (what allocating a deposit address does per order), timed over consecutive indexes after a warm-up.
 * No network, no database; the figure is per address on this machine.
 *
 *   pnpm exec tsx bench/deposit-derivation.ts
 *   BENCH_ADDRESSES=20000 pnpm exec tsx bench/deposit-derivation.ts
 */
import { DEV_MNEMONIC, EvmKeyring } from "@ramp/chain-watcher";
import { envNumber, report } from "./support/report.ts";

const ADDRESSES = envNumber("BENCH_ADDRESSES", 5000);
const keyring = new EvmKeyring(DEV_MNEMONIC);

for (let i = 0; i < 500; i++) keyring.depositAddress(1_000_000 + i);
const started = process.hrtime.bigint();
for (let i = 0; i < ADDRESSES; i++) keyring.depositAddress(i);
const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
const perAddressUs = (elapsedMs * 1000) / ADDRESSES;

console.log(
  `EVM deposit address (public child derivation): ${perAddressUs.toFixed(1)} µs each, ${(ADDRESSES / (elapsedMs / 1000)).toFixed(0)} addresses/s over ${ADDRESSES}`,
);
report({
  key: "deposit-derivation",
  label: "EVM deposit address, public child derivation",
  value: ADDRESSES / (elapsedMs / 1000),
  unit: "addresses/s",
});
