import { useState } from "react";
import { api } from "../api.ts";
import { Btn, Empty, ErrorNote, Field, PageHead, Table, usePaged, when } from "../ui.tsx";

const changes = (v: Record<string, unknown> | undefined) => (v ? JSON.stringify(v) : "");

/** Saves text as a file through a link to a Blob: no request leaves the page for it. */
function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

export function AuditPage() {
  const [actor, setActor] = useState("");
  const [action, setAction] = useState("");
  const [exporting, setExporting] = useState<"" | "Exporting…" | "Saved audit.csv">("");
  const [exportError, setExportError] = useState<unknown>(null);
  const filters = { ...(actor ? { actor } : {}), ...(action ? { action } : {}) };
  const { query, rows, pager } = usePaged(["audit", filters], (cursor) =>
    api.audit.list({ ...filters, cursor }),
  );

  return (
    <>
      <PageHead title="Audit log">
        <Btn
          isDisabled={exporting === "Exporting…"}
          onPress={async () => {
            setExporting("Exporting…");
            setExportError(null);
            try {
              download("audit.csv", await api.audit.export(filters));
              setExporting("Saved audit.csv");
            } catch (e) {
              setExportError(e);
              setExporting("");
            }
          }}
        >
          Export CSV
        </Btn>
        <span aria-live="polite">{exporting}</span>
      </PageHead>
      <ErrorNote error={exportError} />
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
