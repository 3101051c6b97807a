/**
 * A process that logs the way a service does, for log-reader-gone.test.ts: it says "service started"
 * once runMain handles signals, and its stop writes two lines just before runMain exits, as a service's
 * stop does.
 */
import { createLogger } from "../../src/logger.ts";
import { runMain } from "../../src/service.ts";

const log = createLogger("logging-main");
runMain("logging-main", async () => {
  // After runMain has its signal handlers (they are set once this function's promise resolves).
  setImmediate(() => log.info("service started"));
  // A service's sockets keep it alive; this process has none.
  const alive = setInterval(() => undefined, 60_000);
  return {
    async stop() {
      clearInterval(alive);
      log.info("handlers stopped");
      log.info("service stopped");
    },
  };
});
