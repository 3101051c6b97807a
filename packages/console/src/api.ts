import { createConsoleClient, RampApiError } from "@ramp/sdk/console";

/** The console API on the page's own origin: the browser holds the session cookie, the client the CSRF token. */
export const api = createConsoleClient({ baseUrl: "" });

/** What to show for a failed call: the API's own message(s), never a blank page. */
export function errorText(e: unknown): string {
  if (e instanceof RampApiError) return e.messages.join(" ");
  if (e instanceof Error) return e.message;
  return String(e);
}

/** 401 from any call but sign-in: the session ended (idle, absolute limit, signed out elsewhere). */
export const sessionEnded = (e: unknown) => e instanceof RampApiError && e.statusCode === 401;

/** The server's answer to an operator who must enrol TOTP first (RAMP_SANDBOX=false): they can do nothing else. */
export const TOTP_REQUIRED = "TOTP enrolment required";
export const totpRequired = (e: unknown) =>
  e instanceof RampApiError && e.statusCode === 403 && e.messages.includes(TOTP_REQUIRED);

/** 4xx will fail the same way again; only network trouble and 5xx are worth a retry. */
export const worthRetry = (count: number, e: unknown) =>
  count < 2 && !(e instanceof RampApiError && e.statusCode < 500);
