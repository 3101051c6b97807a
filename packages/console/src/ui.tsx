// The few shared building blocks every page uses, over react-aria-components' accessible primitives.
import { type UseQueryResult, useQuery } from "@tanstack/react-query";
import { type ReactNode, useId, useState } from "react";
import {
  Button,
  type ButtonProps,
  Dialog,
  DialogTrigger,
  Form,
  Heading,
  Input,
  Label,
  Modal,
  ModalOverlay,
  TextField,
  type TextFieldProps,
} from "react-aria-components";
import { errorText } from "./api.ts";
import { download } from "./download.ts";

export function Btn({ className, ...props }: ButtonProps & { variant?: "primary" | "danger" | "plain" }) {
  const { variant = "plain", ...rest } = props;
  return <Button {...rest} className={`btn btn-${variant}${className ? ` ${className}` : ""}`} />;
}

export function Field({
  label,
  ...props
}: Omit<TextFieldProps, "children" | "className"> & { label: string }) {
  return (
    <TextField {...props} className="field">
      <Label>{label}</Label>
      <Input />
    </TextField>
  );
}

export function Choice<T extends string>(props: {
  label: string;
  value: NoInfer<T> | "";
  options: readonly T[];
  onChange(v: NoInfer<T> | ""): void;
  /** Offered first, meaning "no filter"; absent when a value is required. */
  any?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.target.value as T | "")}>
        {props.any !== undefined && <option value="">{props.any}</option>}
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {errorText(error)}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function PageHead({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-head">
      <h1>{title}</h1>
      {children && <div className="actions">{children}</div>}
    </header>
  );
}

export interface Column<T> {
  label: string;
  render(row: T): ReactNode;
}

/** A table at 1280 px; a stack of labelled cards at phone width (styles.css), so nothing scrolls sideways. */
export function Table<T>({
  rows,
  columns,
  rowKey,
}: {
  rows: T[];
  columns: Column<T>[];
  rowKey(r: T): string;
}) {
  return (
    <table className="table">
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.label} scope="col">
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)}>
            {columns.map((c) => (
              <td key={c.label} data-label={c.label}>
                {c.render(r)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Asks before doing it; `children` says exactly what will happen (amounts, who, what). */
export function Confirm(props: {
  label: string;
  title: string;
  children: ReactNode;
  confirmLabel?: string;
  variant?: "primary" | "danger";
  onConfirm(): Promise<unknown> | undefined;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <DialogTrigger onOpenChange={() => setError(null)}>
      <Btn variant={props.variant ?? "plain"}>{props.label}</Btn>
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">{props.title}</Heading>
                <div>{props.children}</div>
                <ErrorNote error={error} />
                <div className="actions">
                  <Btn onPress={close}>Cancel</Btn>
                  <Btn
                    variant={props.variant ?? "primary"}
                    isDisabled={busy}
                    onPress={async () => {
                      setBusy(true);
                      try {
                        await props.onConfirm();
                        close();
                      } catch (e) {
                        setError(e);
                      } finally {
                        setBusy(false);
                      }
                    }}
                  >
                    {props.confirmLabel ?? props.label}
                  </Btn>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState<"" | "Copied" | "Copy failed: select the text">("");
  return (
    <span className="copy">
      <Btn
        onPress={() =>
          navigator.clipboard.writeText(text).then(
            () => setDone("Copied"),
            () => setDone("Copy failed: select the text"),
          )
        }
      >
        {label}
      </Btn>
      <span aria-live="polite">{done}</span>
    </span>
  );
}

export interface Paged<T> {
  query: UseQueryResult<{ data: T[]; nextCursor: string }>;
  rows: T[];
  pager: ReactNode;
}

/**
 * One page of a console list after an opaque cursor; earlier cursors are kept so "Previous" works.
 * A change of `key` (new filters) starts again at the first page.
 */
export function usePaged<T>(
  key: readonly unknown[],
  fetch: (cursor: string | undefined) => Promise<{ data: T[]; nextCursor: string }>,
): Paged<T> {
  const [trail, setTrail] = useState<{ key: string; cursors: string[] }>({ key: "", cursors: [] });
  const keyText = JSON.stringify(key);
  const cursors = trail.key === keyText ? trail.cursors : [];
  const cursor = cursors.at(-1);
  const query = useQuery({ queryKey: [...key, cursor ?? ""], queryFn: () => fetch(cursor) });
  const next = query.data?.nextCursor ?? "";
  const pager = (
    <nav className="pager" aria-label="Pages">
      <Btn
        isDisabled={cursors.length === 0}
        onPress={() => setTrail({ key: keyText, cursors: cursors.slice(0, -1) })}
      >
        Previous page
      </Btn>
      <span>Page {cursors.length + 1}</span>
      <Btn isDisabled={!next} onPress={() => setTrail({ key: keyText, cursors: [...cursors, next] })}>
        Next page
      </Btn>
    </nav>
  );
  return { query, rows: query.data?.data ?? [], pager };
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");

/** A card with one small form that creates something, and the API's message when it fails. */
export function CreateCard(props: {
  title: string;
  submit: string;
  pending: boolean;
  error: unknown;
  onSubmit(): void;
  intro?: ReactNode;
  children: ReactNode;
  /** What was created, shown under the form (a key shown once, …). */
  result?: ReactNode;
}) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.intro}
      <Form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          props.onSubmit();
        }}
      >
        {props.children}
        <Btn type="submit" variant="primary" isDisabled={props.pending}>
          {props.submit}
        </Btn>
      </Form>
      <ErrorNote error={props.error} />
      {props.result}
    </section>
  );
}

/** Runs an export, shows that it is running, then saves the CSV and says how big it was. */
export function ExportButton({ file, run }: { file: string; run(): Promise<string> }) {
  const [state, setState] = useState<{ busy: boolean; note: string; error: unknown }>({
    busy: false,
    note: "",
    error: null,
  });
  return (
    <div className="export">
      <Btn
        isDisabled={state.busy}
        onPress={async () => {
          setState({ busy: true, note: "", error: null });
          try {
            const csv = await run();
            download(file, csv);
            setState({
              busy: false,
              note: `Saved ${file} (${csv.length.toLocaleString()} characters)`,
              error: null,
            });
          } catch (e) {
            setState({ busy: false, note: "", error: e });
          }
        }}
      >
        Export CSV
      </Btn>
      {state.busy && <progress aria-label="Exporting" />}
      <span role="status">{state.note}</span>
      <ErrorNote error={state.error} />
    </div>
  );
}
