import type { ConsoleUser } from "@ramp/contracts";
import { Suspense } from "react";
import { Navigate, NavLink, Outlet, useLocation } from "react-router";
import { isOperator, isOwner, useSession, useUser } from "./session.tsx";
import { Btn } from "./ui.tsx";

interface NavItem {
  to: string;
  label: string;
  shows(u: ConsoleUser): boolean;
}

const member = (u: ConsoleUser) => u.kind === "member";
const everyone = () => true;

/** The pages, in menu order; the first one a person may see is where sign-in lands. */
export const NAV: NavItem[] = [
  { to: "/overview", label: "Overview", shows: everyone },
  { to: "/transactions", label: "Transactions", shows: everyone },
  { to: "/keys", label: "API keys", shows: member },
  { to: "/webhooks", label: "Webhooks", shows: member },
  { to: "/bank-accounts", label: "Bank accounts", shows: member },
  { to: "/payments", label: "Payments", shows: member },
  { to: "/team", label: "Team", shows: isOwner },
  { to: "/exceptions", label: "Exceptions", shows: isOperator },
  { to: "/businesses", label: "Businesses", shows: isOperator },
  { to: "/rates", label: "Rates", shows: isOperator },
  { to: "/treasury", label: "Treasury", shows: isOperator },
  { to: "/reconciliation", label: "Reconciliation", shows: isOperator },
  { to: "/operators", label: "Operators", shows: isOperator },
  { to: "/audit", label: "Audit log", shows: everyone },
  { to: "/security", label: "Security", shows: everyone },
];
const SECURITY = "/security";

export const homeOf = (u: ConsoleUser) => NAV.find((n) => n.shows(u))?.to ?? "/overview";

export function Layout() {
  const session = useSession();
  const location = useLocation();
  const { state } = session;
  if (state.phase === "loading") return <p className="loading">Loading…</p>;
  if (state.phase === "signed-out") {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/sign-in?next=${next}${state.expired ? "&expired=1" : ""}`} replace />;
  }
  const user = state.user;
  // Until TOTP is enrolled the server answers nothing else: lead the operator to the one page that works.
  if (state.mustEnrol && location.pathname !== SECURITY) return <Navigate to={SECURITY} replace />;
  const menu = state.mustEnrol ? NAV.filter((n) => n.to === SECURITY) : NAV.filter((n) => n.shows(user));
  return (
    <div className="shell">
      <header className="top">
        <a className="brand" href="/console/">
          Ramp console
        </a>
        <span className="who">
          {user.email} · {user.kind} {user.role}
        </span>
        <Btn onPress={() => session.signOut()}>Sign out</Btn>
      </header>
      <nav className="menu" aria-label="Console">
        {menu.map((n) => (
          <NavLink key={n.to} to={n.to}>
            {n.label}
          </NavLink>
        ))}
      </nav>
      <main className="content">
        <Suspense fallback={<p className="loading">Loading…</p>}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}

/** `/console/`: the first page this person may see. */
export function Home() {
  return <Navigate to={homeOf(useUser())} replace />;
}
