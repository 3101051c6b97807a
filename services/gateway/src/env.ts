import type { Logger, TraceContext } from "@ramp/runtime";
import type { Caller } from "./auth/api-keys.ts";

/** Typed `c.var` of every request. */
export interface GatewayEnv {
  Variables: {
    trace: TraceContext;
    log: Logger;
    caller: Caller;
    /** Set when the request carries an Idempotency-Key: what the owning service dedupes its effect by. */
    idempotencyKey: string | undefined;
  };
}
