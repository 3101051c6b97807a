import { z } from "zod";
import { RpcError } from "../errors.ts";

/** Every request/reply answer is `{ok: true, data}` or `{ok: false, error}`; the gateway maps `error.code` to HTTP. */
export const RpcReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: RpcError }),
]);
export type RpcReply = z.infer<typeof RpcReply>;

/** Headers every message carries so one request can be followed across services in the logs. */
export const TRACE_HEADERS = {
  traceparent: "traceparent",
  requestId: "x-request-id",
  businessId: "x-business-id",
} as const;
