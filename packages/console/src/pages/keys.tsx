import type { ApiKeyDto } from "@ramp/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api.ts";
import { isOwner, useUser } from "../session.tsx";
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

export function KeysPage() {
  const user = useUser();
  const owner = isOwner(user);
  const queries = useQueryClient();
  const { query, rows, pager } = usePaged(["keys"], (cursor) => api.keys.list({ cursor }));
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => api.keys.create({ name }),
    onSuccess: () => {
      setName("");
      return queries.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const revoke = async (k: ApiKeyDto) => {
    await api.keys.revoke(k.id);
    await queries.invalidateQueries({ queryKey: ["keys"] });
  };
  const created = create.data;

  return (
    <>
      <PageHead title="API keys" />
      {owner && (
        <CreateCard
          title="New key"
          submit="Create key"
          pending={create.isPending}
          error={create.error}
          onSubmit={() => create.mutate()}
          result={
            created && (
              <div className="secret" role="status">
                <p>
                  <strong>Copy these now: they are shown this once.</strong> The key signs your API calls; the
                  webhook secret verifies the webhooks it receives.
                </p>
                <p>
                  API key: <code data-testid="new-api-key">{created.apiKey}</code>{" "}
                  <CopyButton text={created.apiKey} label="Copy key" />
                </p>
                <p>
                  Webhook secret: <code>{created.webhookSecret}</code>{" "}
                  <CopyButton text={created.webhookSecret} label="Copy secret" />
                </p>
              </div>
            )
          }
        >
          <Field label="Name" value={name} onChange={setName} isRequired />
        </CreateCard>
      )}
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>
          No keys yet.{" "}
          {owner ? "Create one above to call the API." : "Ask an owner of your business to create one."}
        </Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(k) => k.id}
          columns={[
            { label: "Name", render: (k) => k.name || "(no name)" },
            { label: "Prefix", render: (k) => <code>{k.prefix}…</code> },
            { label: "Created", render: (k) => when(k.createdAt) },
            { label: "Status", render: (k) => (k.revokedAt ? `Revoked ${when(k.revokedAt)}` : "Active") },
            {
              label: "Actions",
              render: (k) =>
                owner && !k.revokedAt ? (
                  <Confirm
                    label="Revoke"
                    title={`Revoke key ${k.name}?`}
                    variant="danger"
                    onConfirm={() => revoke(k)}
                  >
                    <p>
                      Calls with the key <code>{k.prefix}…</code> are refused at once (401). This cannot be
                      undone.
                    </p>
                  </Confirm>
                ) : null,
            },
          ]}
        />
      )}
      {pager}
    </>
  );
}
