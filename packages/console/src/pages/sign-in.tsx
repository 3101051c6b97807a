import { RampApiError } from "@ramp/sdk/console";
import { useState } from "react";
import { Form } from "react-aria-components";
import { Navigate, useSearchParams } from "react-router";
import { api } from "../api.ts";
import { useSession } from "../session.tsx";
import { Btn, ErrorNote, Field } from "../ui.tsx";

/** Only a path inside the console is followed after sign-in, never another site. */
const safeNext = (next: string | null) => (next?.startsWith("/") && !next.startsWith("//") ? next : "/");

export function SignInPage() {
  const session = useSession();
  const [params] = useSearchParams();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [totp, setTotp] = useState("");
  const [askTotp, setAskTotp] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  if (session.state.phase === "in") return <Navigate to={safeNext(params.get("next"))} replace />;
  const expired = params.get("expired") === "1";

  return (
    <main className="sign-in">
      <h1>Ramp console</h1>
      {expired && (
        <p role="status" className="notice">
          Your session ended. Sign in again to continue where you were.
        </p>
      )}
      <Form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const s = await api.signIn({ email, password, ...(askTotp ? { totp } : {}) });
            session.signedIn(s.user);
          } catch (err) {
            // The API asks for the second factor by name; the form then shows its field.
            if (err instanceof RampApiError && err.messages.includes("TOTP code required")) {
              setAskTotp(true);
            } else setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <Field
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          value={email}
          onChange={setEmail}
          isRequired
        />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          isRequired
        />
        {askTotp && (
          <Field
            label="Authenticator code (6 digits)"
            name="totp"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={totp}
            onChange={setTotp}
            isRequired
            autoFocus
          />
        )}
        <ErrorNote error={error} />
        <Btn type="submit" variant="primary" isDisabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </Btn>
      </Form>
    </main>
  );
}
