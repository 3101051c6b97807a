/**
 * A fixed-rate HTTP load generator as a process of its own (see `httpAtRate` in http-load.ts): reads
 * its options as JSON from its one argument, prints its result as one JSON line, exits.
 */
import { type FixedRateOptions, fixedRate } from "./http-load.ts";

const opts = JSON.parse(process.argv[2] ?? "{}") as FixedRateOptions;
process.stdout.write(`${JSON.stringify(await fixedRate(opts))}\n`);
process.exit(0);
