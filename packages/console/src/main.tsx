import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes } from "react-router";
import { sessionEnded, worthRetry } from "./api.ts";
import { Home, Layout } from "./layout.tsx";
import { AuditPage } from "./pages/audit.tsx";
import { BusinessesPage } from "./pages/businesses.tsx";
import { ExceptionsPage } from "./pages/exceptions.tsx";
import { KeysPage } from "./pages/keys.tsx";
import { NotFoundPage } from "./pages/not-found.tsx";
import { OperatorsPage } from "./pages/operators.tsx";
import { OverviewPage } from "./pages/overview.tsx";
import { RatesPage } from "./pages/rates.tsx";
import { ReconciliationPage } from "./pages/reconciliation.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { TeamPage } from "./pages/team.tsx";
import { TransactionPage } from "./pages/transaction.tsx";
import { TransactionsPage } from "./pages/transactions.tsx";
import { TreasuryPage } from "./pages/treasury.tsx";
import { WebhooksPage } from "./pages/webhooks.tsx";
import { reportSessionEnded, SessionProvider } from "./session.tsx";
import "./styles.css";

const onError = (e: unknown) => {
  if (sessionEnded(e)) reportSessionEnded();
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
              <Route path="/team" element={<TeamPage />} />
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
