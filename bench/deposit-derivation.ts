/**
 * Cost of one deposit address per chain family, what allocating one does per order, timed over
 * consecutive indexes after a warm-up: EVM's public child step from the deposit branch's extended
 * public key, Solana's and TON's hardened SLIP-0010 ed25519 path and its public key (TON then hashes
 * its wallet contract). No network, no database; the figures are per address on this machine.
 *
 *   pnpm exec tsx bench/deposit-derivation.ts
 *   BENCH_ADDRESSES=20000 pnpm exec tsx bench/deposit-derivation.ts
 */
import {
  DEV_MNEMONIC,
  EvmKeyring,
  seedFromMnemonic,
  solanaAddressFromSeed,
  tonAddressFromSeed,
} from "@ramp/chain-watcher";
import { envNumber, report } from "./support/report.ts";

const ADDRESSES = envNumber("BENCH_ADDRESSES", 5000);
const keyring = new EvmKeyring(DEV_MNEMONIC);
const seed = seedFromMnemonic(DEV_MNEMONIC);

const families: { key: string; label: string; derive: (index: number) => string }[] = [
  {
    key: "deposit-derivation",
    label: "EVM deposit address, public child derivation",
    derive: (i) => keyring.depositAddress(i),
  },
  {
    key: "deposit-derivation-solana",
    label: "Solana deposit address, hardened SLIP-0010 ed25519",
    derive: (i) => solanaAddressFromSeed(seed, i),
  },
  {
    key: "deposit-derivation-ton",
    label: "TON deposit address, hardened SLIP-0010 ed25519 and wallet v4r2",
    derive: (i) => tonAddressFromSeed(seed, i),
  },
];

for (const { key, label, derive } of families) {
  for (let i = 0; i < 500; i++) derive(1_000_000 + i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < ADDRESSES; i++) derive(i);
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  const perAddressUs = (elapsedMs * 1000) / ADDRESSES;
  console.log(
    `${label}: ${perAddressUs.toFixed(1)} µs each, ${(ADDRESSES / (elapsedMs / 1000)).toFixed(0)} addresses/s over ${ADDRESSES}`,
  );
  report({ key, label, value: ADDRESSES / (elapsedMs / 1000), unit: "addresses/s" });
}
