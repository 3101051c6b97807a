import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  instanceSubject,
  Rpc,
  TRANSACTION_EXPORT_CHUNK,
  type TransactionChunk,
  unavailable,
} from "@ramp/contracts";
import { type Logger, type Stoppable, serveRpc } from "@ramp/runtime";
import { toDto } from "./order-doc.ts";
import type { OrdersStore } from "./orders-store.ts";
import { type OrderScan, scopesOf, searchScan } from "./search-transactions.ts";

export interface ExportOptions {
  /** An export nobody asked the next chunk of for this long is closed (its client went away). */
  idleMs: number;
  /** Open exports this process holds at most; each keeps a database cursor. */
  maxOpen: number;
  chunk?: number;
}

export const EXPORT_DEFAULTS: ExportOptions = { idleMs: 120_000, maxOpen: 16 };

/**
 * The CSV export's orders side. Opening one starts a walk down the list and keeps its position here;
 * the gateway then asks this process, on a subject of this export alone, for one chunk at a time, only
 * when its client has taken the previous one. So every side holds one chunk, however many rows, and
 * each chunk reads about a chunk's worth of orders (see `OrdersStore.page`).
 */
export function serveTransactionExports(
  deps: { nc: NatsConnection; store: OrdersStore; log: Logger; queue: string },
  options: ExportOptions = EXPORT_DEFAULTS,
): Stoppable {
  const { nc, store, log, queue } = deps;
  const chunk = options.chunk ?? TRANSACTION_EXPORT_CHUNK;
  const open = new Map<string, () => Promise<void>>();

  // A cursor that fails to close is only logged: the database drops an idle cursor by itself.
  const closeScan = (scan: OrderScan, exportId?: string) =>
    scan.close().catch((err: unknown) => log.warn({ err, exportId }, "export cursor close failed"));

  const read = async (scan: OrderScan) => {
    const docs = await scan.take(chunk);
    return { data: docs.map(toDto), last: docs.length < chunk };
  };

  const keepOpen = (scan: OrderScan, businessId: string | null): string => {
    const id = randomBytes(16).toString("hex");
    const subject = instanceSubject(Rpc.transactionExportNext, id);
    let idle: NodeJS.Timeout | undefined;
    let closed: Promise<void> | undefined;
    // Never awaited inside this export's own handler: stopping its server waits for that handler.
    const close = () => {
      closed ??= (async () => {
        open.delete(id);
        clearTimeout(idle);
        await closeScan(scan, id);
        await server.stop();
      })();
      return closed;
    };
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        log.warn({ exportId: id, businessId }, "export closed: no chunk asked for in time");
        void close();
      }, options.idleMs);
      idle.unref();
    };
    const server = serveRpc(
      nc,
      Rpc.transactionExportNext,
      queue,
      log,
      async ({ stop }): Promise<TransactionChunk> => {
        if (stop) {
          void close();
          return { data: [], next: "" };
        }
        // A request that reached this subscription while it was being removed.
        if (closed) throw unavailable("The export was closed");
        touch();
        try {
          const { data, last } = await read(scan);
          if (last) void close();
          return { data, next: last ? "" : subject };
        } catch (err) {
          void close();
          throw err;
        }
      },
      subject,
    );
    open.set(id, close);
    touch();
    // The subscription goes out on this connection before the reply naming it, so the server (and, in
    // a cluster, every route after it) knows the subject before the gateway can ask it.
    return subject;
  };

  const opener = serveRpc(nc, Rpc.transactionExport, queue, log, async ({ businessId, filter, q }, ctx) => {
    if (open.size >= options.maxOpen) throw unavailable("Too many exports are running; try again shortly");
    const scan = searchScan(store, scopesOf(businessId, q), filter);
    try {
      const { data, last } = await read(scan);
      if (last) {
        await closeScan(scan);
        return { data, next: "" };
      }
      const next = keepOpen(scan, businessId);
      ctx.log.info({ businessId }, "export opened");
      return { data, next };
    } catch (err) {
      await closeScan(scan);
      throw err;
    }
  });

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= opener.stop().then(async () => {
        await Promise.all([...open.values()].map((close) => close()));
      });
      return stopped;
    },
  };
}
