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
  warn: (line: string) => void = () => undefined,
): Promise<ConsoleSignIn[]> {
  const password = SANDBOX_CONSOLE_PASSWORD;
  const people: ConsoleSignIn[] = [
    { role: "admin", email: SANDBOX_ADMIN_EMAIL, password },
    { role: "owner", email: SANDBOX_OWNER_EMAIL, password },
  ];
  const made = (res: Response, what: string) => {
    if (res.status !== 201 && res.status !== 409) throw new Error(`${what}: ${res.status}`);
  };
  const admin = await fetch(`${base}/admin/v1/operators`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ email: SANDBOX_ADMIN_EMAIL, password, role: "admin" }),
    signal,
  });
  made(admin, "sandbox admin");
  const session = await fetch(`${base}/console/v1/session`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email: SANDBOX_ADMIN_EMAIL, password }),
    signal,
  });
  // Failed sign-ins by anyone lock the admin's email out for a while (429). An earlier start made the
  // people, so the stack starts anyway: the owner is checked again at the next start.
  if (session.status === 429 && admin.status === 409) {
    warn(
      `${SANDBOX_ADMIN_EMAIL} is locked out after failed sign-ins (retry in ${session.headers.get("retry-after") ?? "?"} s); the sandbox owner was not checked`,
    );
    return people;
  }
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
  return people;
}
