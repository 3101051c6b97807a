import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api.ts";
import { canWrite, useUser } from "../session.tsx";
import { CreateCard, Empty, ErrorNote, Field, PageHead, Table, usePaged } from "../ui.tsx";

/** The business's bank accounts: each has a deposit address whose stablecoins pay out to it. */
export function BankAccountsPage() {
  const writer = canWrite(useUser());
  const queries = useQueryClient();
  const { query, rows, pager } = usePaged(["bank-accounts"], (cursor) => api.bankAccounts.list({ cursor }));
  const [bankCode, setBankCode] = useState("");
  const [accountNumber, setAccountNumber] = useState("");
  const add = useMutation({
    mutationFn: () => api.bankAccounts.create({ bankCode, accountNumber }),
    onSuccess: () => {
      setBankCode("");
      setAccountNumber("");
      return queries.invalidateQueries({ queryKey: ["bank-accounts"] });
    },
  });
  const added = add.data;

  return (
    <>
      <PageHead title="Bank accounts" />
      {writer && (
        <CreateCard
          title="Add a bank account"
          submit="Add account"
          pending={add.isPending}
          error={add.error}
          onSubmit={() => add.mutate()}
          intro={
            <p>
              The bank confirms the account holder's name. Stablecoins sent to the account's deposit address
              are paid out to it, as <code>POST /pub/v2/bank-account</code> does.
            </p>
          }
          result={
            added && (
              <p role="status">
                Added {added.accountName}, {added.bank} {added.accountNumber}: deposit address{" "}
                <code>{added.address}</code>.
              </p>
            )
          }
        >
          <Field label="Bank code" value={bankCode} onChange={setBankCode} isRequired />
          <Field
            label="Account number"
            inputMode="numeric"
            value={accountNumber}
            onChange={setAccountNumber}
            isRequired
          />
        </CreateCard>
      )}
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>
          No bank accounts yet.{" "}
          {writer
            ? "Add one above to pay out to it."
            : "Ask an owner or developer of your business to add one."}
        </Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(a) => a.id}
          columns={[
            { label: "Account name", render: (a) => a.accountName },
            { label: "Bank", render: (a) => a.bank },
            { label: "Account number", render: (a) => <code>{a.accountNumber}</code> },
            { label: "Deposit address", render: (a) => <code>{a.address}</code> },
          ]}
        />
      )}
      {pager}
    </>
  );
}
