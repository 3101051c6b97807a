import type { BusinessDto } from "@ramp/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api.ts";
import { canWrite, useUser } from "../session.tsx";
import {
  Confirm,
  CopyButton,
  CreateCard,
  Empty,
  ErrorNote,
  Field,
  PageHead,
  Table,
  usePaged,
  when,
} from "../ui.tsx";

/** A fee in basis points as a percentage, for reading: 150 → "1.50 %". */
const percent = (bps: number) => `${Math.trunc(bps / 100)}.${String(bps % 100).padStart(2, "0")} %`;

function FeeEdit({ b }: { b: BusinessDto }) {
  const queries = useQueryClient();
  const [fee, setFee] = useState(String(b.feeBps));
  return (
    <Confirm
      label="Change fee"
      title={`Fee of ${b.name}`}
      confirmLabel="Save fee"
      onConfirm={async () => {
        await api.businesses.update(b.id, { feeBps: Number(fee) });
        await queries.invalidateQueries({ queryKey: ["businesses"] });
      }}
    >
      <p>Now {percent(b.feeBps)}. New orders are priced with the new fee.</p>
      <Field
        label="Fee in basis points (0 to 5000)"
        inputMode="numeric"
        value={fee}
        onChange={setFee}
        autoFocus
      />
    </Confirm>
  );
}

export function BusinessesPage() {
  const user = useUser();
  const write = canWrite(user);
  const queries = useQueryClient();
  const { query, rows, pager } = usePaged(["businesses"], (cursor) => api.businesses.list({ cursor }));
  const [name, setName] = useState("");
  const [fee, setFee] = useState("0");
  const create = useMutation({
    mutationFn: () => api.businesses.create({ name, feeBps: Number(fee) }),
    onSuccess: () => {
      setName("");
      return queries.invalidateQueries({ queryKey: ["businesses"] });
    },
  });
  const suspend = async (b: BusinessDto, suspended: boolean) => {
    await api.businesses.update(b.id, { suspended });
    await queries.invalidateQueries({ queryKey: ["businesses"] });
  };

  return (
    <>
      <PageHead title="Businesses" />
      {write && (
        <CreateCard
          title="New business"
          submit="Create business"
          pending={create.isPending}
          error={create.error}
          onSubmit={() => create.mutate()}
          result={
            create.data && (
              <p className="secret" role="status">
                <strong>Its first API key, shown this once:</strong> <code>{create.data.apiKey}</code>{" "}
                <CopyButton text={create.data.apiKey} label="Copy key" />
              </p>
            )
          }
        >
          <Field label="Name" value={name} onChange={setName} isRequired />
          <Field label="Fee in basis points" inputMode="numeric" value={fee} onChange={setFee} />
        </CreateCard>
      )}
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>No businesses yet: create the first one above.</Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(b) => b.id}
          columns={[
            { label: "Name", render: (b) => b.name },
            { label: "Id", render: (b) => <code>{b.id}</code> },
            { label: "Fee", render: (b) => percent(b.feeBps) },
            { label: "Status", render: (b) => (b.suspended ? "Suspended" : "Active") },
            { label: "Created", render: (b) => when(b.createdAt) },
            {
              label: "Actions",
              render: (b) =>
                write ? (
                  <div className="actions">
                    <FeeEdit b={b} />
                    {b.suspended ? (
                      <Confirm
                        label="Restore"
                        title={`Restore ${b.name}?`}
                        onConfirm={() => suspend(b, false)}
                      >
                        <p>Its API keys work again at once.</p>
                      </Confirm>
                    ) : (
                      <Confirm
                        label="Suspend"
                        title={`Suspend ${b.name}?`}
                        variant="danger"
                        onConfirm={() => suspend(b, true)}
                      >
                        <p>
                          Its API keys are refused (403 Business suspended) until restored; its open orders
                          still finish.
                        </p>
                      </Confirm>
                    )}
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
