import type { ProcessStack, ServiceName } from "../support/process-stack.ts";
import { SERVICE_NAMES } from "../support/process-stack.ts";

export interface ChaosOptions {
  stack: ProcessStack;
  durationMs: number;
  killEveryMs: number;
  /** Offsets (ms from the start) at which nats-server is killed and started again. */
  natsRestartsAtMs: number[];
  rand: () => number;
  log: (line: string) => void;
}

export interface ChaosLog {
  kills: Record<ServiceName, number>;
  natsRestarts: number;
  /** Moments when every service was still booting from an earlier kill, so none was killed. */
  skipped: number;
  /** Restarts that did not come back ready: a service that cannot start again after a crash. */
  failedRestarts: string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Every `killEveryMs`, `kill -9` one running service picked at random and start it again at once, as
 * an orchestrator would; NATS dies and comes back at the given moments. Services still booting are
 * not picked, so each kill lands on a process that was doing work. Ends with every service back up.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosLog> {
  const log: ChaosLog = {
    kills: Object.fromEntries(SERVICE_NAMES.map((n) => [n, 0])) as Record<ServiceName, number>,
    natsRestarts: 0,
    skipped: 0,
    failedRestarts: [],
  };
  const booting = new Map<ServiceName, Promise<void>>();
  const natsAt = [...o.natsRestartsAtMs].sort((a, b) => a - b);
  const t0 = Date.now();
  const elapsed = () => Date.now() - t0;

  const restart = (name: ServiceName) => {
    const started = o.stack
      .service(name)
      .start()
      .catch((err: unknown) => {
        log.failedRestarts.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => booting.delete(name));
    booting.set(name, started);
  };

  while (elapsed() + o.killEveryMs <= o.durationMs) {
    await sleep(o.killEveryMs);
    if (natsAt.length > 0 && elapsed() >= (natsAt[0] as number)) {
      natsAt.shift();
      o.log(`chaos +${(elapsed() / 1000).toFixed(1)}s: kill -9 nats-server, restart on the same store`);
      await o.stack.restartNats();
      log.natsRestarts++;
      continue;
    }
    const candidates = SERVICE_NAMES.filter((n) => !booting.has(n) && o.stack.service(n).alive);
    const victim = candidates[Math.floor(o.rand() * candidates.length)];
    if (!victim) {
      log.skipped++;
      o.log(`chaos +${(elapsed() / 1000).toFixed(1)}s: every service still booting; no kill`);
      continue;
    }
    o.log(`chaos +${(elapsed() / 1000).toFixed(1)}s: kill -9 ${victim} (pid ${o.stack.service(victim).pid})`);
    await o.stack.service(victim).kill();
    log.kills[victim]++;
    restart(victim);
  }
  await Promise.all(booting.values());
  // Anything down now (a failed restart) gets one more chance before the run is judged.
  for (const name of SERVICE_NAMES) if (!o.stack.service(name).alive) restart(name);
  await Promise.all(booting.values());
  return log;
}
