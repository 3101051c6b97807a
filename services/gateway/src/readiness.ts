// What the gateway's /readyz adds to its own NATS and database: whether every service it calls has a
// responder. Without one, a request the gateway accepts fails with 503 "… is unavailable".
import { type NatsConnection, NoRespondersError } from "@nats-io/transport-node";
import { type DependencyState, MESSAGING, type RpcContract, SERVICE_NAMES } from "@ramp/contracts";

/** A slower answer than this to a request refused before any work counts as no answer. */
const PROBE_TIMEOUT_MS = 2_000;
/** The probe's payload: JSON `null`, which every probed subject's request schema refuses (checked below). */
const PROBE = new TextEncoder().encode("null");

/**
 * For each service the gateway calls, one of its subjects: a fixed one (no `*`) whose request schema
 * refuses `null`, so a probe is answered with a validation error and never reaches a handler.
 */
export function dependencyProbes(): Map<string, RpcContract> {
  const probes = new Map<string, RpcContract>();
  for (const service of SERVICE_NAMES) {
    const probe = MESSAGING[service].serves.find(
      (c) =>
        MESSAGING.gateway.calls.includes(c) && !c.subject.includes("*") && !c.request.safeParse(null).success,
    );
    if (probe) probes.set(service, probe);
  }
  return probes;
}

const PROBES = dependencyProbes();

async function probe(nc: NatsConnection, contract: RpcContract): Promise<DependencyState> {
  try {
    await nc.request(contract.subject, PROBE, { timeout: PROBE_TIMEOUT_MS });
    return "ready";
  } catch (err) {
    // The server answers at once when nobody subscribes; anything else is a responder too slow to answer.
    const noResponders =
      err instanceof NoRespondersError || (err as Error).cause instanceof NoRespondersError;
    return noResponders ? "no responders" : "no answer";
  }
}

/** Every service the gateway calls and whether it answers on this NATS now. */
export async function dependencyStates(nc: NatsConnection): Promise<Record<string, DependencyState>> {
  const entries = [...PROBES].map(
    async ([service, contract]) => [service, await probe(nc, contract)] as const,
  );
  return Object.fromEntries(await Promise.all(entries));
}
