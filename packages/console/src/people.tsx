// Operators and a business's members are managed alike: add one with a starting password, remove one.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useUser } from "./session.tsx";
import { Choice, Confirm, CreateCard, Empty, ErrorNote, Field, PageHead, Table, usePaged } from "./ui.tsx";

interface Person<R extends string> {
  id: string;
  email: string;
  role: R;
}

export function PeoplePage<R extends string>(props: {
  title: string;
  /** Who is listed, e.g. "member": the words of the add form and its empty state. */
  noun: string;
  roles: readonly R[];
  firstRole: R;
  /** Whether the signed-in person may add and remove these people. */
  manages: boolean;
  list(cursor: string | undefined): Promise<{ data: Person<R>[]; nextCursor: string }>;
  create(p: { email: string; password: string; role: R }): Promise<unknown>;
  remove(id: string): Promise<unknown>;
}) {
  const me = useUser();
  const queries = useQueryClient();
  const key = ["people", props.noun];
  const { query, rows, pager } = usePaged(key, props.list);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<R | "">(props.firstRole);
  const add = useMutation({
    mutationFn: () => props.create({ email, password, role: role || props.firstRole }),
    onSuccess: () => {
      setEmail("");
      setPassword("");
      return queries.invalidateQueries({ queryKey: key });
    },
  });

  return (
    <>
      <PageHead title={props.title} />
      {props.manages && (
        <CreateCard
          title={`Add ${props.noun === "operator" ? "an" : "a"} ${props.noun}`}
          submit={`Add ${props.noun}`}
          pending={add.isPending}
          error={add.error}
          onSubmit={() => add.mutate()}
          intro={<p>Give them the email and starting password yourself; they sign in here with it.</p>}
        >
          <Field label="Email" type="email" value={email} onChange={setEmail} isRequired />
          <Field
            label="Starting password (12+ characters)"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={setPassword}
            isRequired
          />
          <Choice label="Role" value={role} options={props.roles} onChange={setRole} />
        </CreateCard>
      )}
      <ErrorNote error={query.error} />
      {query.isSuccess && rows.length === 0 ? (
        <Empty>
          No {props.noun}s yet{props.manages ? ": add one above." : "."}
        </Empty>
      ) : (
        <Table
          rows={rows}
          rowKey={(p) => p.id}
          columns={[
            { label: "Email", render: (p) => p.email },
            { label: "Role", render: (p) => p.role },
            {
              label: "Actions",
              render: (p) =>
                props.manages && p.id !== me.id ? (
                  <Confirm
                    label="Remove"
                    title={`Remove ${p.email}?`}
                    variant="danger"
                    onConfirm={async () => {
                      await props.remove(p.id);
                      await queries.invalidateQueries({ queryKey: key });
                    }}
                  >
                    <p>Their sessions end at once and they can no longer sign in.</p>
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
