import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

/**
 * scrypt with N=2^15, r=8: 32 MiB and tens of milliseconds per guess, the OWASP floor for scrypt.
 * The parameters are kept in each hash, so raising them later still verifies older hashes.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

const derive = (password: string, salt: Buffer, o: { N: number; r: number; p: number }) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 256 * o.N * o.r };
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return [
    "scrypt",
    Math.log2(COST.N),
    COST.r,
    COST.p,
    salt.toString("base64url"),
    key.toString("base64url"),
  ].join("$");
}

/** Verified against when the email is unknown, so a miss costs what a wrong password costs. */
const DUMMY = hashPassword(randomBytes(16).toString("hex"));

/** Constant-time; with no stored hash it still does the same work and answers false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await DUMMY);
  const [scheme, logN, r, p, salt, expected] = hash.split("$");
  if (scheme !== "scrypt" || !salt || !expected) return false;
  const key = await derive(password, Buffer.from(salt, "base64url"), {
    N: 2 ** Number(logN),
    r: Number(r),
    p: Number(p),
  });
  const want = Buffer.from(expected, "base64url");
  return key.length === want.length && timingSafeEqual(key, want) && stored !== null;
}
