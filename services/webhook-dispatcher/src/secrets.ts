import { randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A webhook secret: `whsec_` followed by 64 lowercase hex characters. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("hex")}`;
}
