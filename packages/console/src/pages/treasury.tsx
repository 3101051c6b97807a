import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import { Empty, ErrorNote, PageHead, Table } from "../ui.tsx";

export function TreasuryPage() {
  const query = useQuery({ queryKey: ["treasury"], queryFn: () => api.treasury() });
  const rows = query.data?.data ?? [];
  return (
    <>
      <PageHead title="Treasury" />
      <p>
        Each chain's treasury pays onramps and refunds and the gas of consolidation. A chain below its minimum
        (TREASURY_MIN_&lt;CHAIN&gt;) opens a treasury-low exception.
      </p>
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>
          No chain has a treasury here: chains on the sandbox adapter have none. Serve a real chain with
          RPC_URL_&lt;CHAIN&gt; to see its balances.
        </Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(t) => t.chain}
          columns={[
            { label: "Chain", render: (t) => t.chain },
            { label: "Address", render: (t) => <code>{t.address}</code> },
            { label: "Gas", render: (t) => `${t.native.balance} ${t.native.symbol}` },
            {
              label: "Stablecoin",
              render: (t) => (t.stablecoin ? `${t.stablecoin.balance} ${t.stablecoin.symbol}` : "—"),
            },
            { label: "Minimum", render: (t) => t.minimum ?? "none" },
            { label: "Health", render: (t) => (t.low ? "Low: top it up" : "OK") },
          ]}
        />
      )}
    </>
  );
}
