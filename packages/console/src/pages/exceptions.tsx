import type { ExceptionDto, RefundDto } from "@ramp/contracts";
import { EXCEPTION_KINDS } from "@ramp/contracts/enums";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api } from "../api.ts";
import { canWrite, useUser } from "../session.tsx";
import { Choice, Confirm, Empty, ErrorNote, Field, PageHead, Table, usePaged, when } from "../ui.tsx";

type Kind = (typeof EXCEPTION_KINDS)[number];
const STATUSES = ["open", "resolved"] as const;

/** What the money is, as the exception names it: "12.5 USDC on BASE", "8250 NGN". */
const amountOf = (e: ExceptionDto) =>
  e.amount === undefined
    ? "—"
    : `${e.amount} ${e.token ?? e.currency ?? ""}${e.chain ? ` on ${e.chain}` : ""}`;

function ResolveAction({ e, done }: { e: ExceptionDto; done(): Promise<unknown> }) {
  const [note, setNote] = useState("");
  return (
    <Confirm
      label="Resolve"
      title={`Resolve this ${e.kind} exception?`}
      confirmLabel="Resolve"
      onConfirm={async () => {
        await api.exceptions.resolve(e.id, note);
        await done();
      }}
    >
      <p>It closes with your note; no money moves.</p>
      <Field label="Note (what was done)" value={note} onChange={setNote} isRequired autoFocus />
    </Confirm>
  );
}

/** Tokens back to an address on the same chain, or fiat to a bank account; the dialog repeats both. */
function RefundAction({ e, done }: { e: ExceptionDto; done(r: RefundDto): Promise<unknown> }) {
  const tokens = e.chain !== undefined;
  const [toAddress, setToAddress] = useState("");
  const [bankCode, setBankCode] = useState("");
  const [accountNumber, setAccountNumber] = useState("");
  const destination = tokens
    ? toAddress || "…"
    : `account ${accountNumber || "…"} at bank ${bankCode || "…"}`;
  const send = () => {
    if (e.kind === "payout-failed" && e.orderId) return api.refunds.order(e.orderId, { toAddress });
    if (!e.fundId) throw new Error("This exception names no fund to refund");
    return api.refunds.fund(e.fundId, tokens ? { toAddress } : { bankCode, accountNumber });
  };
  return (
    <Confirm
      label="Refund"
      title="Send a refund?"
      confirmLabel={`Send ${amountOf(e)}`}
      variant="danger"
      onConfirm={async () => done(await send())}
    >
      {tokens ? (
        <Field
          label={`Address on ${e.chain}`}
          value={toAddress}
          onChange={setToAddress}
          isRequired
          autoFocus
        />
      ) : (
        <>
          <Field label="Bank code" value={bankCode} onChange={setBankCode} isRequired autoFocus />
          <Field label="Account number" value={accountNumber} onChange={setAccountNumber} isRequired />
        </>
      )}
      <p role="status">
        Sends <strong>{amountOf(e)}</strong> to <strong>{destination}</strong>, once: asking again answers the
        same refund.
      </p>
    </Confirm>
  );
}

export function ExceptionsPage() {
  const write = canWrite(useUser());
  const queries = useQueryClient();
  const [kind, setKind] = useState<Kind | "">("");
  const [status, setStatus] = useState<(typeof STATUSES)[number] | "">("open");
  const [refund, setRefund] = useState<RefundDto | null>(null);
  const filter = { ...(kind ? { kind } : {}), ...(status ? { status } : {}) };
  const { query, rows, pager } = usePaged(["exceptions", filter], (cursor) =>
    api.exceptions.list({ ...filter, cursor }),
  );
  const refresh = () => queries.invalidateQueries({ queryKey: ["exceptions"] });
  const refundable = (e: ExceptionDto) =>
    e.status === "open" &&
    ((e.kind === "refundable-funds" && e.fundId !== undefined) ||
      (e.kind === "payout-failed" && !!e.orderId));

  return (
    <>
      <PageHead title="Exceptions" />
      <div className="filters">
        <Choice label="Kind" value={kind} options={EXCEPTION_KINDS} onChange={setKind} any="Every kind" />
        <Choice label="Status" value={status} options={STATUSES} onChange={setStatus} any="Both" />
      </div>
      {refund && (
        <p className="card" role="status">
          Refund of {refund.amount} {refund.token ?? refund.currency ?? ""}: {refund.state}
          {refund.txHash ? `, tx ${refund.txHash}` : ""}
          {refund.railReference ? `, rail reference ${refund.railReference}` : ""}. The exception closes once
          it is sent.
        </p>
      )}
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>Nothing waits for an operator here. Exceptions appear when money goes wrong.</Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(e) => e.id}
          columns={[
            { label: "Kind", render: (e) => e.kind },
            { label: "Since", render: (e) => when(e.since) },
            {
              label: "Order",
              render: (e) => (e.orderId ? <Link to={`/transactions/${e.orderId}`}>{e.orderId}</Link> : "—"),
            },
            { label: "Amount", render: amountOf },
            { label: "Detail", render: (e) => e.detail },
            { label: "Status", render: (e) => (e.status === "open" ? "Open" : `Resolved: ${e.note ?? ""}`) },
            {
              label: "Actions",
              render: (e) =>
                write && e.status === "open" ? (
                  <div className="actions">
                    {refundable(e) && (
                      <RefundAction
                        e={e}
                        done={(r) => {
                          setRefund(r);
                          return refresh();
                        }}
                      />
                    )}
                    <ResolveAction e={e} done={refresh} />
                  </div>
                ) : null,
            },
          ]}
        />
      )}
      {pager}
    </>
  );
}
