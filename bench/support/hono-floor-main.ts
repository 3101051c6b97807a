/**
 * The bare Hono floor as a process of its own (the gateway runs as one under `npm start`): prints
 * `listening <url>` once it serves, and serves until it is sent SIGTERM or the bench that started it
 * is gone. `FLOOR_WORK_US` adds that many microseconds of CPU work to every request (see
 * hono-floor-server.ts).
 *
 *   node --import tsx bench/support/hono-floor-main.ts
 */
// The one helper, not the whole runtime package: this process stands for a bare server.
import { onParentGone } from "@ramp/runtime/process-lifetime";
import { startHonoFloor } from "./hono-floor-server.ts";

const server = await startHonoFloor(Number(process.env.PORT ?? 0), Number(process.env.FLOOR_WORK_US ?? 0));
process.stdout.write(`listening ${server.url}\n`);
process.on("SIGTERM", () => {
  server.close();
  process.exit(0);
});
// A bench killed mid-run cannot send that SIGTERM.
onParentGone(() => process.exit(0));
