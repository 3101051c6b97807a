/**
 * EVM deposit scanning with a large watch list, on a local anvil chain (127.0.0.1 only).
 *
 * Fills a few blocks with LOGS ERC-20 Transfer logs (one in five to an address nobody watches), then
 * polls that block range with the chain-watcher's EVM adapter over WATCHED watched addresses for
 * DURATION seconds: Transfer logs read, matched and decoded per second. The floor is the same
 * eth_getLogs answer fetched and JSON-parsed with nothing of ours in it. Storing and publishing the
 * deposits found is not part of this figure.
 *
 *   pnpm exec tsx bench/evm-logs.ts          (from the repo root)
 *   BENCH_EVM_LOGS=5000 BENCH_EVM_WATCHED=10000 BENCH_DURATION_S=10 pnpm exec tsx bench/evm-logs.ts
 */
import { randomBytes } from "node:crypto";
import { createEvmAdapter, DEV_MNEMONIC, EvmKeyring } from "@ramp/chain-watcher";
import { deployTestUsdc, startAnvil } from "@ramp/devinfra/anvil";
import { envNumber, report } from "./support/report.ts";

const LOGS = envNumber("BENCH_EVM_LOGS", 5_000);
const WATCHED = envNumber("BENCH_EVM_WATCHED", 10_000);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
/** Recipients per mintMany transaction: well under anvil's 30M block gas limit (~25k gas each). */
const PER_TX = 400;

const randomAddress = () => `0x${randomBytes(20).toString("hex")}`;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** Runs `once` back to back for DURATION_S; each call handles LOGS logs. */
async function measure(once: () => Promise<void>) {
  const took: number[] = [];
  const started = performance.now();
  const until = started + DURATION_S * 1000;
  do {
    const t0 = performance.now();
    await once();
    took.push(performance.now() - t0);
  } while (performance.now() < until);
  const elapsedS = (performance.now() - started) / 1000;
  took.sort((a, b) => a - b);
  return { perS: (took.length * LOGS) / elapsedS, p50Ms: pct(took, 0.5), p99Ms: pct(took, 0.99) };
}

const anvil = await startAnvil();
try {
  const minter = anvil.account(0);
  const token = await deployTestUsdc(minter);
  const tokenAddress = await token.getAddress();
  const watched = Array.from({ length: WATCHED }, () => ({
    address: randomAddress(),
    mints: [tokenAddress],
  }));
  const recipients = Array.from({ length: LOGS }, (_, i) =>
    i % 5 === 4 ? randomAddress() : watched[i % watched.length]!.address,
  );
  const expected = recipients.length - Math.floor(LOGS / 5);
  const blocks: number[] = [];
  // Nonces counted here: ethers answers a repeated nonce query from a short cache, which races.
  let nonce = Number(await anvil.provider.send("eth_getTransactionCount", [minter.address, "pending"]));
  for (let i = 0; i < recipients.length; i += PER_TX) {
    const tx = await token.getFunction("mintMany")(recipients.slice(i, i + PER_TX), 1_000_000n, {
      nonce: nonce++,
    });
    blocks.push(((await tx.wait()) as { blockNumber: number }).blockNumber);
  }
  const first = Math.min(...blocks);
  const last = Math.max(...blocks);
  process.stdout.write(`${LOGS} Transfer logs in blocks ${first}..${last}, ${WATCHED} watched addresses\n`);

  const evm = createEvmAdapter({
    chain: "BASE",
    rpcUrl: anvil.url,
    keyring: new EvmKeyring(DEV_MNEMONIC),
    confirmations: 1,
    stablecoin: tokenAddress.toLowerCase(),
    logChunkBlocks: last - first + 1,
    startLookbackBlocks: last + 1,
  });
  try {
    const cursor = String(first - 1);
    const scan = async () => {
      const found = (await evm.poll(cursor, watched)).transfers.length;
      if (found !== expected) throw new Error(`poll found ${found} deposits, expected ${expected}`);
    };
    await scan(); // warm-up: token decimals, JIT
    const watcher = await measure(scan);

    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_getLogs",
      params: [
        { address: [tokenAddress], fromBlock: `0x${first.toString(16)}`, toBlock: `0x${last.toString(16)}` },
      ],
    });
    const raw = async () => {
      const answer = (await (
        await fetch(anvil.url, { method: "POST", headers: { "content-type": "application/json" }, body })
      ).json()) as { result: unknown[] };
      if (answer.result.length !== LOGS) throw new Error(`eth_getLogs returned ${answer.result.length} logs`);
    };
    await raw();
    const floor = await measure(raw);

    process.stdout.write(
      `watcher scan: ${Math.round(watcher.perS)} logs/s (p50 ${watcher.p50Ms.toFixed(1)} ms per ${LOGS}-log range)\n` +
        `raw eth_getLogs: ${Math.round(floor.perS)} logs/s (p50 ${floor.p50Ms.toFixed(1)} ms)\n`,
    );
    report({
      key: "evm-getlogs-floor",
      label: "eth_getLogs + JSON parse (anvil)",
      value: floor.perS,
      unit: "logs/s",
      p50Ms: floor.p50Ms,
      p99Ms: floor.p99Ms,
    });
    report({
      key: "evm-transfer-logs",
      label: `EVM Transfer logs scanned, ${WATCHED} watched`,
      value: watcher.perS,
      unit: "logs/s",
      p50Ms: watcher.p50Ms,
      p99Ms: watcher.p99Ms,
    });
  } finally {
    evm.close();
  }
} finally {
  await anvil.stop();
}
