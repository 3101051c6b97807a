import { type Chain, Consumers, Events, LeaseBuckets, Rpc } from "@ramp/contracts";
import { bootService, consume, publish, runWithLease, type Stoppable, serveRpc } from "@ramp/runtime";
import { createAllocationStore } from "./allocation/allocation-store.ts";
import { createAllocator } from "./allocation/allocator.ts";
import { resolveChainSettings } from "./chain-settings.ts";
import { buildChainRegistry } from "./chains/registry.ts";
import { type ChainWatcherConfig, custodyMnemonic, solUsdPrice } from "./config.ts";
import { createConsolidator } from "./consolidation/consolidator.ts";
import { createSettledHandlers } from "./consolidation/settled.ts";
import { createSweepStore } from "./consolidation/sweep-store.ts";
import { createDepositStore } from "./deposits/deposit-store.ts";
import { createPriceFeed, parsePriceTable } from "./prices/price-feed.ts";
import { createSandboxDeposit } from "./sandbox-deposit.ts";
import { createSandboxSwapProvider } from "./swaps/swap-provider.ts";
import { createDescribeToken, createTokenInfo, isSettlementStablecoin } from "./tokens/token-info.ts";
import { createSendLock } from "./transfers/send-lock.ts";
import { createSenders } from "./transfers/senders.ts";
import { createTransferExecutor } from "./transfers/transfer-executor.ts";
import { transferStatuses } from "./transfers/transfer-status.ts";
import { createTransferStore } from "./transfers/transfer-store.ts";
import { startTransferTracker } from "./transfers/transfer-tracker.ts";
import { createTreasuryReader, startTreasuryWatch } from "./treasury/treasury.ts";
import { createTreasuryLowSignals } from "./treasury/treasury-low.ts";
import { createCursorStore } from "./watcher/cursor-store.ts";
import { startPollLoop } from "./watcher/poll-loop.ts";
import { createReindex } from "./watcher/reindex.ts";
import { repeatEvery } from "./watcher/repeat.ts";

const QUEUE = "chain-watcher";

export async function startChainWatcher(config: ChainWatcherConfig) {
  const settings = resolveChainSettings(config);
  const prices = createPriceFeed(
    parsePriceTable(config.TOKEN_USD_PRICES),
    config.RAMP_SANDBOX ? config.SANDBOX_TOKEN_USD_PRICE : undefined,
  );
  return bootService("chain-watcher", config, async ({ nc, js, db, log, claims }) => {
    const registry = await buildChainRegistry(config, settings, custodyMnemonic(config), log);
    const allocations = createAllocationStore(db);
    const swaps =
      (config.SWAP_PROVIDER ?? (config.RAMP_SANDBOX ? "sandbox" : "none")) === "sandbox"
        ? createSandboxSwapProvider(prices)
        : undefined;
    const tokens = {
      settings: (chain: Chain) => settings[chain],
      adapter: (chain: Chain) => registry.adapter(chain),
      swaps,
    };
    const deposits = createDepositStore(db, js, log, createDescribeToken(tokens));
    const transfers = createTransferStore(db, js, claims, log);
    const cursors = createCursorStore(db);
    const sweeps = createSweepStore(db);
    await Promise.all([
      allocations.ensureIndexes(),
      deposits.ensureIndexes(),
      transfers.ensureIndexes(),
      sweeps.ensureIndexes(),
    ]);

    const withSendLock = createSendLock(claims);
    const senders = createSenders({
      registry,
      swaps,
      isStablecoin: (chain, mint) => isSettlementStablecoin(settings[chain], mint),
    });
    const executor = createTransferExecutor({
      store: transfers,
      senders,
      withSendLock,
      log,
      maxAttempts: config.TRANSFER_MAX_ATTEMPTS,
    });
    const allocate = createAllocator(allocations, registry, log);
    const tokenInfo = createTokenInfo({ ...tokens, solUsdPrice: solUsdPrice(config) });

    const settled = createSettledHandlers({
      allocations,
      sweeps,
      consolidates: (chain) => registry.get(chain).adapter?.custody !== undefined,
      log,
    });
    const parts: Stoppable[] = [{ stop: async () => registry.stop() }];
    parts.push(
      deposits.startSweeper(config.POLL_INTERVAL_MS),
      transfers.startSweeper(config.POLL_INTERVAL_MS),
    );
    // Polling from a shared cursor and tracking sends run in one replica at a time, each under a lease;
    // a replica that dies or pauses loses it and another takes over within LEASE_TTL_MS.
    const leased = (key: string, start: () => Stoppable) =>
      runWithLease(
        nc,
        {
          contract: LeaseBuckets.chainWatcher,
          key,
          ttlMs: config.LEASE_TTL_MS,
          replicas: config.NATS_STREAM_REPLICAS,
          log,
        },
        start,
      );
    for (const runtime of registry.all()) {
      if (runtime.mode !== "rpc" || !runtime.adapter) continue;
      const adapter = runtime.adapter;
      parts.push(
        await leased(`poll.${runtime.chain}`, () =>
          startPollLoop({
            chain: runtime.chain,
            adapter,
            allocations,
            deposits,
            cursors,
            intervalMs: config.POLL_INTERVAL_MS,
            onDeposit: settled.onDeposit,
            log,
          }),
        ),
      );
    }
    parts.push(
      await leased("transfers.track", () =>
        startTransferTracker({
          store: transfers,
          registry,
          senders,
          executor,
          withSendLock,
          intervalMs: config.POLL_INTERVAL_MS,
          log,
        }),
      ),
    );
    const consolidator = createConsolidator({
      sweeps,
      transfers,
      executor,
      custody: (chain) => registry.get(chain).adapter?.custody,
      sweepMin: (chain) => config[`SWEEP_MIN_${chain}`],
      maxAttempts: config.TRANSFER_MAX_ATTEMPTS,
      raise: async (signal) => {
        await publish(js, Events.chainExceptions, signal, `${signal.key}:${signal.action}`);
      },
      log,
    });
    parts.push(
      await leased("consolidate", () =>
        repeatEvery(config.POLL_INTERVAL_MS, consolidator.tick, (err) =>
          log.warn({ err }, "consolidation failed; will retry"),
        ),
      ),
    );
    parts.push(
      await consume(nc, {
        ...Consumers.chainWatcherSettledOrders,
        log,
        handler: (ev) => settled.onOrderStatus(ev),
      }),
      await consume(nc, {
        ...Consumers.chainWatcherSettledPayments,
        log,
        handler: (ev) => settled.onPaymentSettled(ev),
      }),
      await consume(nc, {
        ...Consumers.chainWatcherExceptionResolved,
        log,
        handler: (ev) => consolidator.resolved(ev),
      }),
    );
    const treasury = createTreasuryReader({ registry, minimum: (chain) => config[`TREASURY_MIN_${chain}`] });
    const signalLow = createTreasuryLowSignals({ db, js, log });
    parts.push(startTreasuryWatch(treasury, config.TREASURY_CHECK_INTERVAL_MS, log, signalLow));
    parts.push(
      await consume(nc, {
        ...Consumers.chainWatcherTransfers,
        log,
        // Sends are serialised per chain anyway; a few in parallel lets chains proceed independently.
        concurrency: 4,
        maxDeliver: config.TRANSFER_MAX_ATTEMPTS + 5,
        handler: (cmd, ctx) => executor.execute(cmd, ctx.msg.info.deliveryCount, ctx.trace),
      }),
    );
    parts.push(
      serveRpc(nc, Rpc.addressAllocate, QUEUE, log, async (req) => ({ address: await allocate(req) })),
      serveRpc(nc, Rpc.tokenInfo, QUEUE, log, tokenInfo),
      serveRpc(nc, Rpc.transfersStatus, QUEUE, log, transferStatuses(db)),
      serveRpc(nc, Rpc.chainTreasury, QUEUE, log, async () => ({ data: await treasury.read() })),
      serveRpc(
        nc,
        Rpc.chainReindex,
        QUEUE,
        log,
        createReindex({ registry, allocations, deposits, log, onDeposit: settled.onDeposit }),
      ),
    );
    if (config.RAMP_SANDBOX) {
      parts.push(
        serveRpc(nc, Rpc.sandboxChainDeposit, QUEUE, log, createSandboxDeposit(allocations, deposits)),
      );
    }
    return parts;
  });
}
