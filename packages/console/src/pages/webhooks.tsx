import type { ApiKeyDto, WebhookTestResultDto } from "@ramp/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Form } from "react-aria-components";
import { api, errorText } from "../api.ts";
import { canWrite, isOwner, useUser } from "../session.tsx";
import {
  Btn,
  Choice,
  Confirm,
  CopyButton,
  Empty,
  ErrorNote,
  Field,
  PageHead,
  Table,
  usePaged,
  when,
} from "../ui.tsx";

const outcome = (r: WebhookTestResultDto) =>
  r.delivered
    ? `Test ${r.type} delivery to ${r.url}: delivered (${r.statusCode}, ${r.durationMs} ms).`
    : `Test ${r.type} delivery to ${r.url}: failed (${r.error ?? r.statusCode ?? "no answer"}).`;

/** Owners edit the URLs ("" clears one; saving also resumes a paused endpoint); writers send a test. */
function UrlForm({ k, owner, writer }: { k: ApiKeyDto; owner: boolean; writer: boolean }) {
  const queries = useQueryClient();
  const [ramp, setRamp] = useState(k.rampWebhookURL ?? "");
  const [payment, setPayment] = useState(k.paymentWebhookURL ?? "");
  const [note, setNote] = useState("");
  const save = useMutation({
    mutationFn: () =>
      api.keys.setWebhooks(k.id, { rampWebhookURL: ramp.trim(), paymentWebhookURL: payment.trim() }),
    onSuccess: () => {
      setNote("Saved.");
      return queries.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const test = useMutation({
    mutationFn: (type: "RAMP" | "PAYMENT") => api.keys.testWebhook(k.id, { type }),
    onSuccess: (r) => {
      setNote(outcome(r));
      // The test is in the delivery log below.
      return queries.invalidateQueries({ queryKey: ["deliveries"] });
    },
  });
  return (
    <>
      {owner ? (
        <Form
          className="inline-form url-form"
          onSubmit={(e) => {
            e.preventDefault();
            setNote("");
            save.mutate();
          }}
        >
          <Field label="Order webhook URL" type="url" value={ramp} onChange={setRamp} />
          <Field label="Payment webhook URL" type="url" value={payment} onChange={setPayment} />
          <Btn type="submit" variant="primary" isDisabled={save.isPending}>
            Save URLs
          </Btn>
        </Form>
      ) : (
        <dl className="facts">
          <dt>Order webhook URL</dt>
          <dd>{k.rampWebhookURL ?? "Not set: an owner sets it here"}</dd>
          <dt>Payment webhook URL</dt>
          <dd>{k.paymentWebhookURL ?? "Not set"}</dd>
        </dl>
      )}
      {writer && (
        <div className="actions">
          <Btn
            isDisabled={test.isPending || !k.rampWebhookURL}
            onPress={() => {
              setNote("");
              test.mutate("RAMP");
            }}
          >
            Send test
          </Btn>
          <Btn
            isDisabled={test.isPending || !k.paymentWebhookURL}
            onPress={() => {
              setNote("");
              test.mutate("PAYMENT");
            }}
          >
            Send payment test
          </Btn>
          {test.isPending && <progress aria-label="Sending a test delivery" />}
        </div>
      )}
      <ErrorNote error={save.error ?? test.error} />
      {note && <p role="status">{note}</p>}
    </>
  );
}

/** Each active key's webhook URLs and its secret: reveal (with the password) and rotate (owners). */
function KeyWebhooks({ k, owner, writer }: { k: ApiKeyDto; owner: boolean; writer: boolean }) {
  const [password, setPassword] = useState("");
  const [overlap, setOverlap] = useState("24");
  const [secret, setSecret] = useState<{ value: string; note: string } | null>(null);
  return (
    <section className="card" aria-label={`Key ${k.name}`}>
      <h2>
        {k.name} <code>{k.prefix}…</code>
      </h2>
      <UrlForm k={k} owner={owner} writer={writer} />
      {owner && (
        <div className="actions">
          <Confirm
            label="Reveal secret"
            title="Reveal the webhook secret"
            confirmLabel="Reveal"
            onConfirm={async () => {
              const r = await api.keys.revealSecret(k.id, password);
              setPassword("");
              setSecret({ value: r.webhookSecret, note: "The current secret." });
            }}
          >
            <p>Enter your password again to see this key's webhook secret.</p>
            <Field label="Your password" type="password" value={password} onChange={setPassword} autoFocus />
          </Confirm>
          <Confirm
            label="Rotate secret"
            title="Rotate the webhook secret"
            confirmLabel="Rotate"
            onConfirm={async () => {
              const r = await api.keys.rotateSecret(k.id, Number(overlap));
              setSecret({
                value: r.webhookSecret,
                note: r.previousValidUntil
                  ? `Deliveries carry both signatures until ${when(r.previousValidUntil)}.`
                  : "The old secret no longer signs anything.",
              });
            }}
          >
            <p>
              A new secret signs every delivery from now on. During the overlap each delivery carries both
              signatures (new first), so your receiver can switch without missing one.
            </p>
            <Field
              label="Overlap in hours (0 to 72)"
              inputMode="numeric"
              value={overlap}
              onChange={setOverlap}
            />
          </Confirm>
        </div>
      )}
      {secret && (
        <p className="secret" role="status">
          {secret.note} <code>{secret.value}</code> <CopyButton text={secret.value} />
        </p>
      )}
    </section>
  );
}

export function WebhooksPage() {
  const user = useUser();
  const queries = useQueryClient();
  const keys = useQuery({ queryKey: ["keys", "all"], queryFn: () => api.keys.list({ limit: 100 }) });
  const active = (keys.data?.data ?? []).filter((k) => !k.revokedAt);
  const [orderId, setOrderId] = useState("");
  const [status, setStatus] = useState<"delivered" | "failed" | "">("");
  const [note, setNote] = useState("");
  const filters = { ...(orderId ? { orderId } : {}), ...(status ? { status } : {}) };
  const { query, rows, pager } = usePaged(["deliveries", filters], (cursor) =>
    api.webhooks.deliveries({ ...filters, cursor }),
  );

  return (
    <>
      <PageHead title="Webhooks" />
      <ErrorNote error={keys.error} />
      {keys.isSuccess && active.length === 0 && (
        <Empty>No active API key: create one on the API keys page, then set its webhook URLs.</Empty>
      )}
      {active.map((k) => (
        <KeyWebhooks key={k.id} k={k} owner={isOwner(user)} writer={canWrite(user)} />
      ))}
      <h2>Delivery log</h2>
      <div className="filters">
        <Field label="Order or payment id" value={orderId} onChange={setOrderId} />
        <Choice
          label="Outcome"
          value={status}
          options={["delivered", "failed"] as const}
          onChange={setStatus}
          any="Any"
        />
      </div>
      <ErrorNote error={query.error} />
      {note && <p role="status">{note}</p>}
      {query.isSuccess && rows.length === 0 ? (
        <Empty>
          No deliveries match. Orders and payments of your keys send webhooks as their status changes.
        </Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(d) => d.id}
          columns={[
            { label: "When", render: (d) => when(d.createdAt) },
            { label: "Subject", render: (d) => <code>{d.subjectId}</code> },
            { label: "URL", render: (d) => <span className="wrap">{d.url}</span> },
            { label: "Attempt", render: (d) => d.attempt },
            {
              label: "Outcome",
              render: (d) =>
                d.delivered
                  ? `Delivered (${d.statusCode}, ${d.durationMs} ms)`
                  : `Failed: ${d.error ?? d.statusCode ?? "no answer"}`,
            },
            {
              label: "Actions",
              render: (d) =>
                canWrite(user) ? (
                  <Btn
                    onPress={async () => {
                      try {
                        await api.webhooks.redeliver(d.deliveryId);
                        setNote(`Delivery ${d.deliveryId} queued again.`);
                        await queries.invalidateQueries({ queryKey: ["deliveries"] });
                      } catch (e) {
                        setNote(`Redeliver failed: ${errorText(e)}`);
                      }
                    }}
                  >
                    Redeliver
                  </Btn>
                ) : null,
            },
          ]}
        />
      )}
      {pager}
    </>
  );
}
