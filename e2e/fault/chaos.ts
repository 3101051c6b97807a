import type { ProcessStack, ServiceName } from "../support/process-stack.ts";
import { SERVICE_NAMES } from "../support/process-stack.ts";
import type { ManagedProcess } from "../support/service-process.ts";

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
  /**
   * Restarts that did not come back ready within three boots: a service that cannot start again after a
   * crash. A boot that meets a NATS node failing over waits it out (JetStream setup is retried, and so
   * is the boot's last flush, which a disconnect used to fail with "connection disconnected").
   */
  failedRestarts: string[];
  /**
   * Boots that exited before they were ready and were started again, as an orchestrator restarts a
   * container that exits (seen before boots waited out a disconnect: a gateway whose boot met NATS being
   * killed exited with "connection disconnected").
   */
  bootRetries: string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Every `killEveryMs`, `kill -9` one running process and start it again at once, as an orchestrator
 * would; NATS (one node of a cluster) dies and comes back at the given moments. The victim is a
 * random process of a service killed least so far, so every service is hit before any is hit twice;
 * processes still booting are not picked, so each kill lands on one that was doing work. With
 * replicas, only one process of a service is down at a time. Ends with every process back up.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosLog> {
  const log: ChaosLog = {
    kills: Object.fromEntries(SERVICE_NAMES.map((n) => [n, 0])) as Record<ServiceName, number>,
    natsRestarts: 0,
    skipped: 0,
    failedRestarts: [],
    bootRetries: [],
  };
  const booting = new Map<ManagedProcess, Promise<void>>();
  const natsAt = [...o.natsRestartsAtMs].sort((a, b) => a - b);
  const t0 = Date.now();
  const elapsed = () => Date.now() - t0;

  const restart = (p: ManagedProcess) => {
    const why = (err: unknown) => `${p.name}: ${err instanceof Error ? err.message : String(err)}`;
    const boot = async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await p.start();
        } catch (err) {
          if (attempt === 3) throw err;
          log.bootRetries.push(why(err).split("\n")[0] ?? p.name);
          // The harness starts a process that exited on its own again after 500 ms; this waits for that boot.
          await sleep(1_000);
        }
      }
    };
    const started = boot()
      .catch((err: unknown) => {
        log.failedRestarts.push(why(err));
      })
      .finally(() => booting.delete(p));
    booting.set(p, started);
  };
  const killable = (name: ServiceName) => {
    const all = o.stack.replicasOf(name);
    // One replica down at a time: a second one killed meanwhile would take the whole service away.
    if (all.length > 1 && all.some((p) => booting.has(p) || !p.alive)) return [];
    return all.filter((p) => !booting.has(p) && p.alive);
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
    const open = SERVICE_NAMES.filter((n) => killable(n).length > 0);
    const least = Math.min(...open.map((n) => log.kills[n]));
    const fewest = open.filter((n) => log.kills[n] === least);
    const name = fewest[Math.floor(o.rand() * fewest.length)];
    const choices = name ? killable(name) : [];
    const victim = choices[Math.floor(o.rand() * choices.length)];
    if (!name || !victim) {
      log.skipped++;
      o.log(`chaos +${(elapsed() / 1000).toFixed(1)}s: every service still booting; no kill`);
      continue;
    }
    o.log(`chaos +${(elapsed() / 1000).toFixed(1)}s: kill -9 ${victim.name} (pid ${victim.pid})`);
    await victim.kill();
    log.kills[name]++;
    restart(victim);
  }
  await Promise.all(booting.values());
  // Anything down now (a failed restart) gets one more chance before the run is judged.
  for (const p of o.stack.services()) if (!p.alive && !booting.has(p)) restart(p);
  await Promise.all(booting.values());
  return log;
}
