import type { PaymentDto } from "@ramp/contracts";
import { api } from "../api.ts";
import { Empty, ErrorNote, PageHead, Table, usePaged, when } from "../ui.tsx";

const asset = (p: PaymentDto) => p.currency ?? (p.chain ? `(token on ${p.chain})` : "");

/** Where the payer sends the money, and what the payment is for. */
function PaymentDetail({ p }: { p: PaymentDto }) {
  return (
    <details>
      <summary>Details</summary>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{p.id}</code>
        </dd>
        <dt>Amount, fee, total</dt>
        <dd>
          {p.amount} + {p.fee} = {p.totalAmount} {asset(p)}
        </dd>
        {p.token && (
          <>
            <dt>Pay to</dt>
            <dd>
              <code>{p.token.address}</code> on {p.token.chain} (token <code>{p.token.mint}</code>)
            </dd>
          </>
        )}
        {p.fiat && (
          <>
            <dt>Pay to</dt>
            <dd>
              {p.fiat.accountName}, {p.fiat.bank} <code>{p.fiat.accountNumber}</code>
            </dd>
          </>
        )}
        <dt>Expires</dt>
        <dd>{when(p.expiresAt)}</dd>
      </dl>
    </details>
  );
}

export function PaymentsPage() {
  const { query, rows, pager } = usePaged(["payments"], (cursor) => api.payments.list({ cursor }));
  return (
    <>
      <PageHead title="Payments" />
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>
          No payments yet. Open one with <code>POST /pub/v2/payment</code> and an API key; it shows here with
          its status.
        </Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(p) => p.id}
          columns={[
            { label: "Created", render: (p) => when(p.createdAt) },
            { label: "Status", render: (p) => p.status },
            { label: "Reference", render: (p) => p.reference ?? "—" },
            { label: "Method", render: (p) => p.method },
            { label: "Total", render: (p) => `${p.totalAmount} ${asset(p)}` },
            { label: "Detail", render: (p) => <PaymentDetail p={p} /> },
          ]}
        />
      )}
      {pager}
    </>
  );
}
