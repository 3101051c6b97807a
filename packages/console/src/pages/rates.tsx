import { Currency } from "@ramp/contracts/enums";
import { RampApiError } from "@ramp/sdk/console";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Form } from "react-aria-components";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { api } from "../api.ts";
import { canWrite, useUser } from "../session.tsx";
import { Btn, Choice, Confirm, Empty, ErrorNote, Field, PageHead, Table, usePaged, when } from "../ui.tsx";

export function RatesPage() {
  const write = canWrite(useUser());
  const queries = useQueryClient();
  const [currency, setCurrency] = useState<Currency>("NGN");
  const current = useQuery({
    queryKey: ["rate", currency],
    queryFn: () => api.rates.get(currency),
    retry: false,
  });
  const notSet = current.error instanceof RampApiError && current.error.statusCode === 404;
  const history = usePaged(["rate-history", currency], (cursor) =>
    api.rates.history({ currency, cursor, limit: 100 }),
  );
  const [onRamp, setOnRamp] = useState("");
  const [offRamp, setOffRamp] = useState("");
  const refresh = () =>
    Promise.all([
      queries.invalidateQueries({ queryKey: ["rate", currency] }),
      queries.invalidateQueries({ queryKey: ["rate-history", currency] }),
    ]);
  const set = useMutation({
    // The typed decimal text goes out as a JSON number whose shortest form is that same text; the API
    // reads it losslessly. Rates have at most a few decimals, well inside a double's exact digits.
    mutationFn: () => api.rates.set(currency, { onRamp: Number(onRamp), offRamp: Number(offRamp) }),
    onSuccess: refresh,
  });
  // Drawn oldest to newest; the numbers only place points on the chart, nothing is computed with them.
  const points = [...history.rows]
    .filter((h) => h.change === "set")
    .reverse()
    .map((h) => ({
      at: new Date(h.at).toLocaleString(),
      onRamp: Number(h.onRamp),
      offRamp: Number(h.offRamp),
    }));

  return (
    <>
      <PageHead title="Rates" />
      <div className="filters">
        <Choice
          label="Currency"
          value={currency}
          options={Currency.options}
          onChange={(c) => c && setCurrency(c)}
        />
      </div>
      <section className="card" aria-labelledby="current-rate">
        <h2 id="current-rate">Market rate of {currency} per USD</h2>
        {current.data && (
          <p>
            Onramp {current.data.onRampRate.rate} · Offramp {current.data.offRampRate.rate} (set{" "}
            {when(current.data.onRampRate.createdAt)})
          </p>
        )}
        {notSet ? (
          <Empty>No market rate for {currency}: set one below to quote it.</Empty>
        ) : (
          <ErrorNote error={current.error} />
        )}
        {write && (
          <>
            <Form
              className="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                set.mutate();
              }}
            >
              <Field label="Onramp rate" inputMode="decimal" value={onRamp} onChange={setOnRamp} isRequired />
              <Field
                label="Offramp rate"
                inputMode="decimal"
                value={offRamp}
                onChange={setOffRamp}
                isRequired
              />
              <Btn type="submit" variant="primary" isDisabled={set.isPending}>
                Set rate
              </Btn>
              {current.data && (
                <Confirm
                  label="Remove rate"
                  title={`Remove the ${currency} market rate?`}
                  variant="danger"
                  onConfirm={async () => {
                    await api.rates.remove(currency);
                    await refresh();
                  }}
                >
                  <p>{currency} is no longer quoted until a rate is set again.</p>
                </Confirm>
              )}
            </Form>
            <ErrorNote error={set.error} />
          </>
        )}
      </section>
      <h2>History</h2>
      <ErrorNote error={history.query.error} />
      {points.length > 1 && (
        <figure className="chart" aria-label={`${currency} rate history chart`}>
          <ResponsiveContainer width="100%" height={260}>
            <LineChart data={points}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="at" hide />
              <YAxis domain={["auto", "auto"]} width={70} />
              <Tooltip />
              <Legend />
              <Line
                type="stepAfter"
                dataKey="onRamp"
                name="Onramp"
                stroke="#1d4ed8"
                dot={false}
                isAnimationActive={false}
              />
              <Line
                type="stepAfter"
                dataKey="offRamp"
                name="Offramp"
                stroke="#b45309"
                dot={false}
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </figure>
      )}
      {history.query.isSuccess && history.rows.length === 0 ? (
        <Empty>No changes to {currency} yet.</Empty>
      ) : (
        <Table
          rows={history.rows}
          rowKey={(h) => h.id}
          columns={[
            { label: "When", render: (h) => when(h.at) },
            { label: "Change", render: (h) => h.change },
            { label: "Onramp", render: (h) => h.onRamp ?? "—" },
            { label: "Offramp", render: (h) => h.offRamp ?? "—" },
          ]}
        />
      )}
      {history.pager}
    </>
  );
}
