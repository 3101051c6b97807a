import { badRequest } from "@ramp/contracts";
import type { ListPosition } from "@ramp/runtime";
import { ObjectId } from "mongodb";

const SHAPE = /^(\d{1,15})\.([0-9a-f]{24})$/;

/**
 * The cursor is opaque to clients (base64url) so its shape can change without breaking them; inside it
 * is `<createdAt ms>.<id>`, the keyset (`createdAt`, `_id`) the list is sorted on: the last order a
 * page showed, or (id all zeros) the edge of the history a page that spent its budget read down to. A
 * position, not an offset: orders created while a client pages sort before it, so later pages neither
 * repeat nor skip.
 */
export function encodeCursor(p: ListPosition): string {
  return Buffer.from(`${p.at.getTime()}.${p.id.toHexString()}`, "utf8").toString("base64url");
}

/** Anything that did not come from `encodeCursor` → 400 `Invalid cursor`. */
export function decodeCursor(cursor: string): ListPosition {
  const invalid = () => badRequest("Invalid cursor");
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  const match = SHAPE.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match?.[1] || !match[2]) throw invalid();
  const at = new Date(Number(match[1]));
  if (Number.isNaN(at.getTime())) throw invalid();
  return { at, id: new ObjectId(match[2]) };
}
