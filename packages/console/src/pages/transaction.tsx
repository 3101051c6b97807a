import type { TimelineEntryDto } from "@ramp/contracts";
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api } from "../api.ts";
import { ErrorNote, PageHead, when } from "../ui.tsx";

const detailText = (d: TimelineEntryDto["detail"]) =>
  Object.entries(d)
    .filter(([, v]) => v !== null && v !== "")
    .map(([k, v]) => `${k}: ${v}`)
    .join(" · ");

export function TransactionPage() {
  const { id = "" } = useParams();
  const tx = useQuery({ queryKey: ["transaction", id], queryFn: () => api.transactions.get(id) });
  const t = tx.data;
  return (
    <>
      <PageHead title="Order">
        <Link to="/transactions">Back to transactions</Link>
      </PageHead>
      <p>
        <code>{id}</code>
      </p>
      <ErrorNote error={tx.error} />
      {tx.isPending && <p role="status">Loading…</p>}
      {t && (
        <>
          <dl className="facts card">
            <dt>Type</dt>
            <dd>{t.transactionType}</dd>
            <dt>Status</dt>
            <dd>{t.status}</dd>
            <dt>Created</dt>
            <dd>{when(t.createdAt)}</dd>
            <dt>Business</dt>
            <dd>
              <code>{t.businessId}</code>
            </dd>
            <dt>Tokens</dt>
            <dd>
              {t.amount} ({t.chain}, mint <code>{t.mint}</code>)
            </dd>
            <dt>Fiat</dt>
            <dd>
              {t.fiatAmount} {t.currency} at {t.rate}, fee {t.fee}
            </dd>
            <dt>Deposit address</dt>
            <dd>
              <code>{t.address || "—"}</code>
            </dd>
            <dt>Recipient</dt>
            <dd>
              <code>{t.recipient || "—"}</code>
            </dd>
            <dt>Bank account</dt>
            <dd>{t.accountNumber ? `${t.accountNumber} ${t.accountName} (${t.bank})` : "—"}</dd>
            <dt>Tx hash</dt>
            <dd>
              <code>{t.signature || "—"}</code>
            </dd>
            <dt>User id</dt>
            <dd>{t.userExternalId || "—"}</dd>
          </dl>
          <h2>Timeline</h2>
          <ol className="timeline">
            {t.timeline.map((e) => (
              <li key={`${e.at} ${e.kind} ${JSON.stringify(e.detail)}`}>
                <strong>{e.kind}</strong> <span className="muted">{when(e.at)}</span>
                <div className="wrap">{detailText(e.detail)}</div>
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}
