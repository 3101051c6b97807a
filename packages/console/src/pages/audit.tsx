import { useState } from "react";
import { api } from "../api.ts";
import { Empty, ErrorNote, ExportButton, Field, PageHead, Table, usePaged, when } from "../ui.tsx";

const changes = (v: Record<string, unknown> | undefined) => (v ? JSON.stringify(v) : "");

export function AuditPage() {
  const [actor, setActor] = useState("");
  const [action, setAction] = useState("");
  const filters = { ...(actor ? { actor } : {}), ...(action ? { action } : {}) };
  const { query, rows, pager } = usePaged(["audit", filters], (cursor) =>
    api.audit.list({ ...filters, cursor }),
  );

  return (
    <>
      <PageHead title="Audit log">
        <ExportButton file="audit.csv" run={() => api.audit.export(filters)} />
      </PageHead>
      <div className="filters">
        <Field label="Actor (email or id)" value={actor} onChange={setActor} />
        <Field label="Action (e.g. consoleKeyRevoke)" value={action} onChange={setAction} />
      </div>
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>No entries match. Every write through the console or the admin API adds one.</Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(e) => e.id}
          columns={[
            { label: "When", render: (e) => when(e.at) },
            { label: "Who", render: (e) => e.actor.email ?? e.actor.kind },
            { label: "Action", render: (e) => e.action },
            { label: "Target", render: (e) => <code className="wrap">{e.target}</code> },
            {
              label: "Change",
              render: (e) => (
                <span className="wrap">
                  {changes(e.before)} {e.before || e.after ? "→" : ""} {changes(e.after)}
                </span>
              ),
            },
          ]}
        />
      )}
      {pager}
    </>
  );
}
