import { Secret, TOTP } from "otpauth";

/** RFC 6238 with the parameters every authenticator app assumes: SHA-1, 6 digits, 30 s. */
const totpOf = (secret: string, email = "") =>
  new TOTP({
    issuer: "Ramp",
    label: email,
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret),
  });

export const newTotpSecret = () => new Secret({ size: 20 }).base32;

export const totpUri = (secret: string, email: string) => totpOf(secret, email).toString();

const PERIOD_MS = 30_000;

/**
 * The time step the code belongs to, or null when it is not a current code. One step of clock drift
 * either way is accepted, as authenticator apps need.
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / PERIOD_MS) + delta;
}

export const totpValid = (secret: string, code: string, now: number) => totpStep(secret, code, now) !== null;

export const totpCode = (secret: string, now: number) => totpOf(secret).generate({ timestamp: now });
