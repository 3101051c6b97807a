import {
  type Msg,
  type NatsConnection,
  NoRespondersError,
  RequestError,
  type RequestOptions,
  TimeoutError,
} from "@nats-io/transport-node";

/**
 * A request made while the connection is down is buffered by nats.js and sent on reconnect, ahead of
 * the re-subscription of the reply inbox: the server's "no responders" answer to it finds no inbox and
 * the caller waits out its whole timeout (measured: 10 s, then 503, for the first rate written after a
 * NATS restart). And right after a reconnect a subject can still have no responder, because every
 * responder reconnects on its own schedule (reconnectTimeWait plus jitter). Both are a restart's
 * ordinary moments, so a request waits for the reconnect, and one answered "no responders" shortly
 * after a reconnect is asked again, within the caller's timeout.
 */

/** After a reconnect, this long for every responder to be back. */
const RESPONDERS_RETURN_MS = 3_000;
const ASK_AGAIN_MS = 100;

interface ConnectionState {
  connected: boolean;
  reconnectedAt: number;
  /** Resolved (and replaced) on every reconnect. */
  reconnect: Promise<void>;
}

const states = new WeakMap<NatsConnection, ConnectionState>();

/** Follows the connection's disconnects and reconnects for `requestWhenConnected`; call once, after connect. */
export function trackConnection(nc: NatsConnection): void {
  if (states.has(nc)) return;
  let resolveReconnect = () => {};
  const next = () =>
    new Promise<void>((resolve) => {
      resolveReconnect = resolve;
    });
  const state: ConnectionState = { connected: true, reconnectedAt: 0, reconnect: next() };
  states.set(nc, state);
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") state.connected = false;
      if (s.type === "reconnect") {
        state.connected = true;
        state.reconnectedAt = Date.now();
        const resolve = resolveReconnect;
        state.reconnect = next();
        resolve();
      }
    }
  })();
}

const isNoResponders = (err: unknown) =>
  err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `nc.request` that, on a connection followed by `trackConnection`, is not sent while the connection
 * is down and is asked again while responders are still coming back from a reconnect. It fails as
 * `nc.request` does: TimeoutError when `timeout` runs out, the no-responders error when none came back.
 */
export async function requestWhenConnected(
  nc: NatsConnection,
  subject: string,
  payload: Uint8Array,
  opts: RequestOptions,
): Promise<Msg> {
  const state = states.get(nc);
  if (!state) return nc.request(subject, payload, opts);
  const deadline = Date.now() + opts.timeout;
  for (;;) {
    if (!state.connected) {
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        state.reconnect.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), Math.max(0, left));
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) throw new TimeoutError();
    }
    try {
      return await nc.request(subject, payload, { ...opts, timeout: Math.max(1, deadline - Date.now()) });
    } catch (err) {
      const returning = Date.now() - state.reconnectedAt < RESPONDERS_RETURN_MS;
      if (!isNoResponders(err) || !returning || deadline - Date.now() <= ASK_AGAIN_MS) throw err;
      await sleep(ASK_AGAIN_MS);
    }
  }
}
