import type { NatsConnection } from "@nats-io/transport-node";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { ensureStreams } from "@ramp/runtime";
import { type Db, MongoClient, type MongoClientOptions, ObjectId } from "mongodb";
import { afterAll, beforeAll, inject } from "vitest";

/** What the outbox tests of this package run on, filled in before their tests and closed after. */
export interface OutboxTestbed {
  nats: TestNats;
  /**
   * Connections as banking, each a replica of its own: the entries these tests queue are payout results,
   * which only banking may publish.
   */
  publishers: NatsConnection[];
  /** The first of them. */
  nc: NatsConnection;
  /** Reads what was published, as no service could. */
  observer: NatsConnection;
  mongo: MongoClient;
  /** A database of this file's own. */
  db: Db;
}

export function useOutboxTestbed(
  name: string,
  opts: { publishers?: number; mongo?: MongoClientOptions } = {},
): OutboxTestbed {
  const bed = { publishers: [] as NatsConnection[] } as OutboxTestbed;
  beforeAll(async () => {
    bed.nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
    for (let i = 0; i < (opts.publishers ?? 1); i++) bed.publishers.push(await bed.nats.connectAs("banking"));
    bed.nc = bed.publishers[0] as NatsConnection;
    bed.observer = await bed.nats.connectObserver();
    await ensureStreams(bed.nc);
    bed.mongo = await MongoClient.connect(inject("mongoUrl"), opts.mongo);
    bed.db = bed.mongo.db(`t${new ObjectId().toHexString().slice(-8)}_${name}`);
  });
  afterAll(async () => {
    for (const nc of bed.publishers) await nc.close();
    await bed.observer?.close();
    await bed.mongo?.close();
    await bed.nats?.stop();
  });
  return bed;
}
