import { CSRF_HEADER, SESSION_COOKIE } from "@ramp/contracts";
import { ADMIN_TOKEN } from "./stack.ts";

const PASSWORD = "a long enough password";

/**
 * An operator made with the admin token (the test stack's unless told) and signed in to the console of
 * the gateway at `baseUrl`: the headers a browser then sends on every console request (the session
 * cookie and the CSRF token).
 */
export async function signedInOperator(
  baseUrl: string,
  email = "ops@ops.example",
  role: "admin" | "operator" | "viewer" = "operator",
  adminToken = ADMIN_TOKEN,
): Promise<Record<string, string>> {
  const created = await fetch(`${baseUrl}/admin/v1/operators`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ email, password: PASSWORD, role }),
  });
  if (created.status !== 201) throw new Error(`operator not created: ${created.status}`);
  const res = await fetch(`${baseUrl}/console/v1/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const cookie = res.headers.get("set-cookie")?.match(new RegExp(`${SESSION_COOKIE}=([^;]*)`))?.[1] ?? "";
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  return { cookie: `${SESSION_COOKIE}=${cookie}`, [CSRF_HEADER]: csrfToken };
}
