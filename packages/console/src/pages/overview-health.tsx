import { EXCEPTION_KINDS } from "@ramp/contracts/enums";
import { useQueries, useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api } from "../api.ts";
import { ErrorNote } from "../ui.tsx";

/** One page of a kind's open exceptions counts it; past a page it shows as "100+" (bounded work). */
const PAGE = 100;

/** An operator's first look: what waits in the exceptions queue, and whether a treasury runs low. */
export function OperatorHealth() {
  const open = useQueries({
    queries: EXCEPTION_KINDS.map((kind) => ({
      queryKey: ["exceptions", "open-count", kind],
      queryFn: () => api.exceptions.list({ kind, status: "open", limit: PAGE }),
    })),
  });
  const treasury = useQuery({ queryKey: ["treasury"], queryFn: () => api.treasury() });
  const chains = treasury.data?.data ?? [];
  const low = chains.filter((t) => t.low);

  return (
    <div className="health">
      <section className="card" aria-labelledby="open-exceptions">
        <h2 id="open-exceptions">Open exceptions by kind</h2>
        <ErrorNote error={open.find((q) => q.error)?.error} />
        <dl className="facts">
          {EXCEPTION_KINDS.map((kind, i) => {
            const page = open[i]?.data;
            const count = page ? `${page.data.length}${page.nextCursor ? "+" : ""}` : "…";
            return (
              <div key={kind} className={page && page.data.length > 0 ? "attention" : undefined}>
                <dt>{kind}</dt>
                <dd>{count}</dd>
              </div>
            );
          })}
        </dl>
        <Link to="/exceptions">Open the exceptions queue</Link>
      </section>
      <section className="card" aria-labelledby="treasury-health">
        <h2 id="treasury-health">Treasury health</h2>
        <ErrorNote error={treasury.error} />
        {treasury.isSuccess && chains.length === 0 && (
          <p>No chain has a treasury here (chains on the sandbox adapter have none).</p>
        )}
        {chains.length > 0 && (
          <dl className="facts">
            {chains.map((t) => (
              <div key={t.chain} className={t.low ? "attention" : undefined}>
                <dt>{t.chain}</dt>
                <dd>
                  {t.low ? "Below minimum: " : "OK: "}
                  {t.native.balance} {t.native.symbol}
                  {t.stablecoin ? `, ${t.stablecoin.balance} ${t.stablecoin.symbol}` : ""}
                </dd>
              </div>
            ))}
          </dl>
        )}
        {low.length > 0 && (
          <p role="alert" className="error">
            {low.map((t) => t.chain).join(", ")} below minimum: top up.
          </p>
        )}
        <Link to="/treasury">Open the treasury</Link>
      </section>
    </div>
  );
}
