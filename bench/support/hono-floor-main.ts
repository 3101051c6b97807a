/**
 * The bare Hono floor as a process of its own (the gateway runs as one under `npm start`): prints
 * `listening <url>` once it serves, and serves until it is sent SIGTERM. `FLOOR_WORK_US` adds that many
 * microseconds of CPU work to every request (see hono-floor-server.ts).
 *
 *   node --import tsx bench/support/hono-floor-main.ts
 */
import { startHonoFloor } from "./hono-floor-server.ts";

const server = await startHonoFloor(Number(process.env.PORT ?? 0), Number(process.env.FLOOR_WORK_US ?? 0));
process.stdout.write(`listening ${server.url}\n`);
process.on("SIGTERM", () => {
  server.close();
  process.exit(0);
});
