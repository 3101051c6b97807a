import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api.ts";
import { Empty, ErrorNote, ExportButton, Field, PageHead, Table } from "../ui.tsx";

/** Yesterday in UTC: the last whole day. */
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

export function ReconciliationPage() {
  const [date, setDate] = useState(yesterday);
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(date);
  const query = useQuery({
    queryKey: ["reconciliation", date],
    queryFn: () => api.reconciliation({ date }),
    enabled: valid,
  });
  const day = query.data;
  return (
    <>
      <PageHead title="Reconciliation">
        {valid && (
          <ExportButton file={`reconciliation-${date}.csv`} run={() => api.reconciliationCsv({ date })} />
        )}
      </PageHead>
      <Field label="Day (UTC, YYYY-MM-DD)" value={date} onChange={setDate} />
      <ErrorNote error={query.error} />
      {day && (
        <>
          <h2>Per currency and chain</h2>
          {day.rows.length === 0 ? (
            <Empty>Nothing was completed, paid or refunded that day.</Empty>
          ) : (
            <Table
              rows={day.rows}
              rowKey={(r) => `${r.currency ?? ""}:${r.chain ?? ""}`}
              columns={[
                { label: "Currency", render: (r) => r.currency ?? "—" },
                { label: "Chain", render: (r) => r.chain ?? "—" },
                { label: "Orders completed", render: (r) => r.ordersCompleted },
                { label: "Fiat in", render: (r) => r.fiatIn },
                { label: "Fiat out", render: (r) => r.fiatOut },
                { label: "Tokens in", render: (r) => r.tokensIn },
                { label: "Tokens out", render: (r) => r.tokensOut },
                { label: "Fees", render: (r) => r.feesEarned },
                { label: "Refunds", render: (r) => r.refunds },
              ]}
            />
          )}
          <h2>Mismatches</h2>
          {day.mismatches.length === 0 ? (
            <Empty>No mismatches: a clean day.</Empty>
          ) : (
            <Table
              rows={day.mismatches}
              rowKey={(m) => `${m.kind}:${m.ref}`}
              columns={[
                { label: "Kind", render: (m) => m.kind },
                { label: "About", render: (m) => <code>{m.ref}</code> },
                { label: "Detail", render: (m) => m.detail },
              ]}
            />
          )}
        </>
      )}
    </>
  );
}
