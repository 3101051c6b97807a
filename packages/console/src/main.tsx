import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ComponentType, lazy, StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes } from "react-router";
import { sessionEnded, totpRequired, worthRetry } from "./api.ts";
import { Home, Layout } from "./layout.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { reportSessionEnded, reportTotpRequired, SessionProvider } from "./session.tsx";
import "./styles.css";

/** Each page is its own chunk, loaded on first visit: the first load carries no chart library. */
function page<M>(load: () => Promise<M>, name: keyof M) {
  return lazy(async () => ({ default: (await load())[name] as ComponentType }));
}
const OverviewPage = page(() => import("./pages/overview.tsx"), "OverviewPage");
const TransactionsPage = page(() => import("./pages/transactions.tsx"), "TransactionsPage");
const TransactionPage = page(() => import("./pages/transaction.tsx"), "TransactionPage");
const KeysPage = page(() => import("./pages/keys.tsx"), "KeysPage");
const WebhooksPage = page(() => import("./pages/webhooks.tsx"), "WebhooksPage");
const BankAccountsPage = page(() => import("./pages/bank-accounts.tsx"), "BankAccountsPage");
const PaymentsPage = page(() => import("./pages/payments.tsx"), "PaymentsPage");
const TeamPage = page(() => import("./pages/team.tsx"), "TeamPage");
const SecurityPage = page(() => import("./pages/security.tsx"), "SecurityPage");
const BusinessesPage = page(() => import("./pages/businesses.tsx"), "BusinessesPage");
const RatesPage = page(() => import("./pages/rates.tsx"), "RatesPage");
const ExceptionsPage = page(() => import("./pages/exceptions.tsx"), "ExceptionsPage");
const TreasuryPage = page(() => import("./pages/treasury.tsx"), "TreasuryPage");
const ReconciliationPage = page(() => import("./pages/reconciliation.tsx"), "ReconciliationPage");
const OperatorsPage = page(() => import("./pages/operators.tsx"), "OperatorsPage");
const AuditPage = page(() => import("./pages/audit.tsx"), "AuditPage");
const NotFoundPage = page(() => import("./pages/not-found.tsx"), "NotFoundPage");

const onError = (e: unknown) => {
  if (sessionEnded(e)) reportSessionEnded();
  else if (totpRequired(e)) reportTotpRequired();
};
const queries = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: { queries: { retry: worthRetry, staleTime: 5_000 } },
});

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <SessionProvider>
        <BrowserRouter basename="/console">
          <Routes>
            <Route path="/sign-in" element={<SignInPage />} />
            <Route element={<Layout />}>
              <Route index element={<Home />} />
              <Route path="/overview" element={<OverviewPage />} />
              <Route path="/transactions" element={<TransactionsPage />} />
              <Route path="/transactions/:id" element={<TransactionPage />} />
              <Route path="/keys" element={<KeysPage />} />
              <Route path="/webhooks" element={<WebhooksPage />} />
              <Route path="/bank-accounts" element={<BankAccountsPage />} />
              <Route path="/payments" element={<PaymentsPage />} />
              <Route path="/team" element={<TeamPage />} />
              <Route path="/security" element={<SecurityPage />} />
              <Route path="/businesses" element={<BusinessesPage />} />
              <Route path="/rates" element={<RatesPage />} />
              <Route path="/exceptions" element={<ExceptionsPage />} />
              <Route path="/treasury" element={<TreasuryPage />} />
              <Route path="/reconciliation" element={<ReconciliationPage />} />
              <Route path="/operators" element={<OperatorsPage />} />
              <Route path="/audit" element={<AuditPage />} />
              <Route path="*" element={<NotFoundPage />} />
            </Route>
          </Routes>
        </BrowserRouter>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
