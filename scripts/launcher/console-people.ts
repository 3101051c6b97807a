// The sandbox's console sign-ins: an `admin` operator and an `owner` of the sandbox business, made once.

/** Local sandbox only: printed in the banner, the same on every start so a kept database still signs in. */
export const SANDBOX_CONSOLE_PASSWORD = "sandbox-console-password";
export const SANDBOX_ADMIN_EMAIL = "admin@sandbox.local";
export const SANDBOX_OWNER_EMAIL = "owner@sandbox.local";

export interface ConsoleSignIn {
  role: "admin" | "owner";
  email: string;
  password: string;
}

const json = { "content-type": "application/json" };

/**
 * Creates the two people unless they exist (409 is success here: an earlier start made them), the
 * owner through the console as the admin, since members are the console's to manage.
 */
export async function seedConsolePeople(
  base: string,
  adminToken: string,
  businessId: string,
  signal?: AbortSignal,
): Promise<ConsoleSignIn[]> {
  const password = SANDBOX_CONSOLE_PASSWORD;
  const made = (res: Response, what: string) => {
    if (res.status !== 201 && res.status !== 409) throw new Error(`${what}: ${res.status}`);
  };
  made(
    await fetch(`${base}/admin/v1/operators`, {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ email: SANDBOX_ADMIN_EMAIL, password, role: "admin" }),
      signal,
    }),
    "sandbox admin",
  );
  const session = await fetch(`${base}/console/v1/session`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email: SANDBOX_ADMIN_EMAIL, password }),
    signal,
  });
  if (session.status !== 200) throw new Error(`sandbox admin sign-in: ${session.status}`);
  const { csrfToken } = (await session.json()) as { csrfToken: string };
  const cookie = (session.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  made(
    await fetch(`${base}/console/v1/members`, {
      method: "POST",
      headers: { ...json, cookie, "x-csrf-token": csrfToken },
      body: JSON.stringify({ email: SANDBOX_OWNER_EMAIL, password, role: "owner", businessId }),
      signal,
    }),
    "sandbox owner",
  );
  await fetch(`${base}/console/v1/session`, {
    method: "DELETE",
    headers: { cookie, "x-csrf-token": csrfToken },
    signal,
  });
  return [
    { role: "admin", email: SANDBOX_ADMIN_EMAIL, password },
    { role: "owner", email: SANDBOX_OWNER_EMAIL, password },
  ];
}
