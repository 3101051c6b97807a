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

/** One step of clock drift either way is accepted, as authenticator apps need. */
export const totpValid = (secret: string, code: string, now: number) =>
  totpOf(secret).validate({ token: code, timestamp: now, window: 1 }) !== null;

export const totpCode = (secret: string, now: number) => totpOf(secret).generate({ timestamp: now });
