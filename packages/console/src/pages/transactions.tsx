import { Chain, Currency, OrderStatus, TransactionType } from "@ramp/contracts/enums";
import { useState } from "react";
import { Link } from "react-router";
import { api } from "../api.ts";
import { isOperator, useUser } from "../session.tsx";
import { Choice, Empty, ErrorNote, ExportButton, Field, PageHead, Table, usePaged, when } from "../ui.tsx";

export function TransactionsPage() {
  const operator = isOperator(useUser());
  const [q, setQ] = useState("");
  const [type, setType] = useState<TransactionType | "">("");
  const [status, setStatus] = useState<OrderStatus | "">("");
  const [chain, setChain] = useState<Chain | "">("");
  const [currency, setCurrency] = useState<Currency | "">("");
  const [businessId, setBusinessId] = useState("");
  const filters = {
    ...(q.trim() ? { q: q.trim() } : {}),
    ...(type ? { type } : {}),
    ...(status ? { status } : {}),
    ...(chain ? { chain } : {}),
    ...(currency ? { currency } : {}),
    ...(businessId.trim() ? { businessId: businessId.trim() } : {}),
  };
  const { query, rows, pager } = usePaged(["transactions", filters], (cursor) =>
    api.transactions.list({ ...filters, cursor }),
  );

  return (
    <>
      <PageHead title="Transactions">
        <ExportButton file="transactions.csv" run={() => api.transactions.export(filters)} />
      </PageHead>
      <div className="filters">
        <Field
          label={
            operator
              ? "Search: order id, deposit address, account number, tx hash or user id"
              : "Search: order id, address, account number, tx hash or user id"
          }
          type="search"
          value={q}
          onChange={setQ}
        />
        <Choice label="Type" value={type} options={TransactionType.options} onChange={setType} any="Any" />
        <Choice label="Status" value={status} options={OrderStatus.options} onChange={setStatus} any="Any" />
        <Choice label="Chain" value={chain} options={Chain.options} onChange={setChain} any="Any" />
        <Choice
          label="Currency"
          value={currency}
          options={Currency.options}
          onChange={setCurrency}
          any="Any"
        />
        {operator && <Field label="Business id" value={businessId} onChange={setBusinessId} />}
      </div>
      <ErrorNote error={query.error} />
      {query.isPending && <p role="status">Loading…</p>}
      {query.isSuccess && rows.length === 0 ? (
        <Empty>
          {query.data?.nextCursor
            ? "None on this page of history: try the next page."
            : "No orders match. Clear the filters, or create an order with your API key (the sandbox shows how)."}
        </Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(t) => t.id}
          columns={[
            {
              label: "Order",
              render: (t) => (
                <Link to={`/transactions/${t.id}`}>
                  <code>{t.id}</code>
                </Link>
              ),
            },
            { label: "Created", render: (t) => when(t.createdAt) },
            { label: "Type", render: (t) => t.transactionType },
            { label: "Status", render: (t) => t.status },
            // Amounts are shown as the API wrote them (plain decimals); nothing is computed with them.
            { label: "Tokens", render: (t) => `${t.amount} on ${t.chain}` },
            { label: "Fiat", render: (t) => `${t.fiatAmount} ${t.currency}` },
          ]}
        />
      )}
      {pager}
    </>
  );
}
