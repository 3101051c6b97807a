import { parseJsonText, stringifyJson } from "@ramp/contracts";
import type { TraceContext } from "@ramp/runtime";

/**
 * Where a secret that an answer carries comes from again, for the API key it belongs to. The
 * idempotency record keeps the answer without it and a replay asks the owning service, so no secret
 * rests in the gateway's database (webhook-dispatcher keeps webhook secrets encrypted).
 */
export type SecretSource = (apiKeyId: string, trace: TraceContext) => Promise<string>;
/** By the top-level field of a JSON answer that holds the secret. */
export type SecretSources = Readonly<Record<string, SecretSource>>;

/** Which fields of a kept answer were emptied, and whose secrets they were. */
export interface WithheldSecrets {
  apiKeyId: string;
  fields: string[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const value = parseJsonText(body);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answer as it may be kept: each field named in `sources` emptied (left in place, so a replay
 * writes the fields in their original order). An answer without such fields is kept as it is.
 */
export function withholdSecrets(
  body: string,
  apiKeyId: string,
  sources: SecretSources,
): { body: string; withheld?: WithheldSecrets } {
  const value = parseObject(body);
  const fields = value ? Object.keys(value).filter((f) => Object.hasOwn(sources, f)) : [];
  if (!value || fields.length === 0) return { body };
  for (const field of fields) value[field] = "";
  return { body: stringifyJson(value), withheld: { apiKeyId, fields } };
}

/** The answer as first sent: each withheld field filled from its source again. */
export async function restoreSecrets(
  body: string,
  withheld: WithheldSecrets,
  sources: SecretSources,
  trace: TraceContext,
): Promise<string> {
  const value = parseObject(body);
  if (!value) throw new Error("a kept answer with withheld secrets is not a JSON object");
  for (const field of withheld.fields) {
    const source = sources[field];
    if (!source) throw new Error(`no source for the withheld field ${field}`);
    value[field] = await source(withheld.apiKeyId, trace);
  }
  return stringifyJson(value);
}
