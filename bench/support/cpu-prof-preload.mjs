// Loaded through NODE_OPTIONS="--import …" (Node refuses --cpu-prof there): a process whose main script
// path contains BENCH_PROFILE_MATCH runs under V8's CPU profiler from start-up, and writes
// CPU.<pid>.cpuprofile into BENCH_PROFILE_DIR as it exits, as --cpu-prof would. Others are untouched.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const match = process.env.BENCH_PROFILE_MATCH;
const dir = process.env.BENCH_PROFILE_DIR;
if (match && dir && process.argv.some((a) => a.includes(match))) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  // A same-thread inspector session answers synchronously, so this works in an exit handler.
  process.on("exit", () => {
    session.post("Profiler.stop", (err, result) => {
      if (!err) writeFileSync(join(dir, `CPU.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
