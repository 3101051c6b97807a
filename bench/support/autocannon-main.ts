/**
 * autocannon as a load generator in a process of its own (see http-load.ts, used where wrk is not
 * installed): reads its options as JSON from its one argument, prints autocannon's result as one JSON
 * line. Programmatic rather than the CLI: the CLI's `--idReplacement` with a body sends one request per
 * connection and stops (autocannon 8), so each request's body gets its id here instead.
 */
import { createRequire } from "node:module";
import { type HttpLoadOptions, ID_PLACEHOLDER } from "./http-load.ts";

type Autocannon = (opts: Record<string, unknown>) => Promise<unknown>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

const opts = JSON.parse(process.argv[2] ?? "{}") as HttpLoadOptions;
const unique = `${process.pid}-${Date.now()}`;
let n = 0;
const result = await autocannon({
  url: opts.url,
  connections: opts.concurrency,
  duration: opts.durationS,
  timeout: 10,
  method: opts.method ?? "GET",
  headers: opts.headers ?? {},
  ...(opts.body === undefined
    ? {}
    : {
        requests: [
          {
            setupRequest: (req: Record<string, unknown>) => ({
              ...req,
              body: opts.body?.replaceAll(ID_PLACEHOLDER, `${unique}-${n++}`),
            }),
          },
        ],
      }),
});
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
