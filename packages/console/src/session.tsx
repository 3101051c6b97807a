import type { ConsoleUser } from "@ramp/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { api } from "./api.ts";

type State =
  | { phase: "loading" }
  | { phase: "signed-out"; expired: boolean }
  /** `mustEnrol`: the server refuses everything but TOTP enrolment to this operator (RAMP_SANDBOX=false). */
  | { phase: "in"; user: ConsoleUser; mustEnrol?: boolean };

interface Session {
  state: State;
  signedIn(user: ConsoleUser): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** Set by the provider: the query and mutation caches call them when any request answers 401 / 403 TOTP. */
let onEnded: () => void = () => {};
let onTotpRequired: () => void = () => {};
export const reportSessionEnded = () => onEnded();
export const reportTotpRequired = () => onTotpRequired();

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<State>({ phase: "loading" });
  const queries = useQueryClient();

  useEffect(() => {
    api.me().then(
      (s) => setState({ phase: "in", user: s.user }),
      () => setState({ phase: "signed-out", expired: false }),
    );
  }, []);

  const ended = useCallback(() => {
    setState((s) => (s.phase === "in" ? { phase: "signed-out", expired: true } : s));
    queries.clear();
  }, [queries]);
  useEffect(() => {
    onEnded = ended;
    onTotpRequired = () => setState((s) => (s.phase === "in" ? { ...s, mustEnrol: true } : s));
  }, [ended]);

  const value = useMemo<Session>(
    () => ({
      state,
      signedIn: (user) => setState({ phase: "in", user }),
      async signOut() {
        try {
          await api.signOut();
        } finally {
          queries.clear();
          setState({ phase: "signed-out", expired: false });
        }
      },
    }),
    [state, queries],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}

/** The signed-in person; only used under the layout, which renders nothing without one. */
export function useUser(): ConsoleUser {
  const { state } = useSession();
  if (state.phase !== "in") throw new Error("useUser without a session");
  return state.user;
}

/** Viewers read only: their pages show no write buttons (and the API refuses a crafted write). */
export const canWrite = (u: ConsoleUser) => u.role !== "viewer";
export const isOwner = (u: ConsoleUser) => u.kind === "member" && u.role === "owner";
export const isOperator = (u: ConsoleUser) => u.kind === "operator";
