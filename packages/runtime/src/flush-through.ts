import type { NatsConnection } from "@nats-io/transport-node";

/** How long a boot's flush waits for NATS to come back before the boot fails. */
export const BOOT_FLUSH_MS = 60_000;
const RETRY_MS = 250;

/**
 * `nc.flush()`, waiting out a disconnect. A flush in flight when the connection drops is rejected at
 * once ("connection disconnected") although the client reconnects by itself: at the end of a boot that
 * met a NATS restart, that rejection made the service exit instead of coming up a moment later. Fails
 * when the connection is closed for good or NATS stays away past `waitMs`.
 */
export async function flushThrough(
  nc: Pick<NatsConnection, "flush" | "isClosed">,
  waitMs = BOOT_FLUSH_MS,
): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return await nc.flush();
    } catch (err) {
      if (nc.isClosed() || Date.now() + RETRY_MS > until) throw err;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}
