import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api.ts";
import { useSession, useUser } from "../session.tsx";
import { CopyButton, CreateCard, Field, PageHead } from "../ui.tsx";

/** TOTP enrolment: a new secret, active once a code made from it is confirmed. */
export function SecurityPage() {
  const user = useUser();
  const session = useSession();
  const mustEnrol = session.state.phase === "in" && session.state.mustEnrol === true;
  const [code, setCode] = useState("");
  const enrol = useMutation({ mutationFn: () => api.totp.enrol() });
  const confirm = useMutation({
    mutationFn: () => api.totp.confirm(code),
    onSuccess: (u) => {
      setCode("");
      session.signedIn(u);
    },
  });
  const pending = enrol.data;

  return (
    <>
      <PageHead title="Security" />
      {mustEnrol && (
        <p className="notice" role="status">
          This console asks operators for an authenticator code: enrol one here before anything else.
        </p>
      )}
      {user.totpEnabled ? (
        <section className="card" aria-label="Authenticator app">
          <h2>Authenticator app (TOTP)</h2>
          <p role="status">
            On: signing in asks for a 6-digit code from your authenticator app as well as your password.
          </p>
        </section>
      ) : (
        !pending && (
          <CreateCard
            title="Authenticator app (TOTP): off"
            submit="Start enrolment"
            pending={enrol.isPending}
            error={enrol.error}
            onSubmit={() => enrol.mutate()}
            intro={
              <p>
                With it on, signing in also asks for a 6-digit code from an authenticator app (RFC 6238), so a
                stolen password alone is not enough. Starting shows a new secret for your app.
              </p>
            }
          >
            {null}
          </CreateCard>
        )
      )}
      {pending && !user.totpEnabled && (
        <CreateCard
          title="Add it to your authenticator, then confirm"
          submit="Confirm"
          pending={confirm.isPending}
          error={confirm.error}
          onSubmit={() => confirm.mutate()}
          intro={
            <div className="secret">
              <p>
                Enter this secret in your authenticator app (time-based, 6 digits, 30 seconds):{" "}
                <code data-testid="totp-secret">{pending.secret}</code>{" "}
                <CopyButton text={pending.secret} label="Copy secret" />
              </p>
              <p>
                Or the whole setup as a link: <code className="wrap">{pending.otpauthUri}</code>{" "}
                <CopyButton text={pending.otpauthUri} label="Copy link" />
              </p>
            </div>
          }
        >
          <Field
            label="Code from your authenticator (6 digits)"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={setCode}
            isRequired
          />
        </CreateCard>
      )}
    </>
  );
}
