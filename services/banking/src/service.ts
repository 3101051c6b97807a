import { Consumers, notFound, Rpc } from "@ramp/contracts";
import { bootService, callRpc, consume, serveRpc } from "@ramp/runtime";
import { lookupAccount, registerAccount, resolveAccount, toDto } from "./accounts/accounts.ts";
import { createAccountsStore } from "./accounts/accounts-store.ts";
import { createAdapters } from "./adapters.ts";
import { filterBanks, loadCatalogue } from "./catalogue/catalogue.ts";
import { type BankingConfig, kycPepper } from "./config.ts";
import { createKyc } from "./identity/kyc.ts";
import { createPayouts, payoutsOfDay } from "./payouts/payouts.ts";
import { createVirtualAccounts } from "./virtual-accounts/virtual-accounts.ts";

const QUEUE = "banking";

export async function startBanking(config: BankingConfig) {
  return bootService("banking", config, async ({ nc, js, db, log, claims }) => {
    const banks = loadCatalogue();
    const { rail, identity } = createAdapters(config);
    const store = createAccountsStore(db);
    await store.init();
    const virtualAccounts = createVirtualAccounts({ db, rail, js, claims, log });
    await virtualAccounts.init();
    const retry = {
      attempts: config.PAYOUT_ATTEMPTS,
      baseDelayMs: config.PAYOUT_RETRY_BASE_MS,
      timeoutMs: config.PAYOUT_TIMEOUT_MS,
    };
    const payouts = createPayouts({ db, rail, js, claims, log, retry });
    const byDay = payoutsOfDay(db);
    await byDay.init();
    const kyc = createKyc({ db, provider: identity, pepper: kycPepper(config) });
    const accountsDeps = {
      store,
      rail,
      banks,
      enquiryTimeoutMs: config.NAME_ENQUIRY_TIMEOUT_MS,
      allocateAddress: async (ref: string) =>
        (await callRpc(nc, Rpc.addressAllocate, { chain: "SOLANA", purpose: "bank-account", ref, mints: [] }))
          .address,
    };

    const parts = [
      serveRpc(nc, Rpc.banksList, QUEUE, log, async (q) => filterBanks(banks, q)),
      serveRpc(nc, Rpc.accountsRegister, QUEUE, log, async (req, ctx) => {
        const account = await registerAccount(accountsDeps, req);
        ctx.log.info({ bankAccountId: account.id }, "bank account registered");
        return account;
      }),
      serveRpc(nc, Rpc.accountsLookup, QUEUE, log, async (req) => lookupAccount(accountsDeps, req)),
      serveRpc(nc, Rpc.accountsList, QUEUE, log, async ({ businessId, limit, cursor }) => {
        const found = await store.page(businessId, { limit, cursor });
        return { data: found.data.map(toDto), nextCursor: found.nextCursor };
      }),
      serveRpc(nc, Rpc.accountsResolve, QUEUE, log, async (req) =>
        resolveAccount(accountsDeps, req.bankCode, req.accountNumber),
      ),
      serveRpc(nc, Rpc.accountsGet, QUEUE, log, async ({ address }) => {
        const found = await store.byAddress(address);
        if (!found) throw notFound("Bank account not found");
        return found;
      }),
      serveRpc(nc, Rpc.virtualAccountOpen, QUEUE, log, async (req) => virtualAccounts.open(req)),
      serveRpc(nc, Rpc.virtualAccountClose, QUEUE, log, async ({ ref }) => {
        await virtualAccounts.close(ref);
        return { ok: true as const };
      }),
      serveRpc(nc, Rpc.payoutsOfDay, QUEUE, log, (req) => byDay.page(req)),
      serveRpc(nc, Rpc.kycVerify, QUEUE, log, async ({ businessId, bvn }) => kyc.verify(businessId, bvn)),
      await consume(nc, {
        ...Consumers.bankingPayouts,
        log,
        handler: (cmd, { trace }) => payouts.handle(cmd, trace),
      }),
      virtualAccounts.startSweeper(),
      payouts.startSweeper(),
    ];
    if (config.RAMP_SANDBOX) {
      parts.push(
        serveRpc(nc, Rpc.sandboxFiatDeposit, QUEUE, log, async (req, ctx) => ({
          reference: await virtualAccounts.sandboxDeposit(req, ctx.trace),
        })),
      );
    }
    return parts;
  });
}
