/**
 * The webhook floor, as a process of its own: the signed POSTs a dispatcher makes, with nothing else —
 * no JetStream, no delivery log — over a keep-alive agent, `concurrency` at a time as the dispatcher
 * sends to one endpoint. Reads its options as JSON from its one argument; prints one JSON line with the
 * rate and this process's CPU per POST.
 */
import { Agent, request } from "node:http";
import { sampleTransaction, signedHeaders } from "@ramp/contracts";

interface Options {
  url: string;
  secret: string;
  count: number;
  concurrency: number;
}

const opts = JSON.parse(process.argv[2] ?? "{}") as Options;
if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(opts.url))
  throw new Error(`only 127.0.0.1 is a target: ${opts.url}`);
const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });

function post(i: number): Promise<number> {
  const body = JSON.stringify(
    sampleTransaction({
      id: `floor${i.toString(16).padStart(19, "0")}`,
      createdAt: new Date().toISOString(),
    }),
  );
  const headers = {
    ...signedHeaders("X-SVC", opts.secret, body),
    "content-length": String(Buffer.byteLength(body)),
  };
  return new Promise((resolve, reject) => {
    const req = request(opts.url, { method: "POST", headers, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

let next = 0;
let failed = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: opts.concurrency }, async () => {
    while (next < opts.count) if ((await post(next++)) !== 200) failed++;
  }),
);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({ perSecond: opts.count / seconds, failed, cpuMsPerPost: (cpu.user + cpu.system) / 1000 / opts.count })}\n`,
);
agent.destroy();
process.exit(0);
