import type { JetStreamClient } from "@nats-io/jetstream";
import { Events, type PayoutCommand } from "@ramp/contracts";
import {
  flushOutbox,
  isDuplicateKey,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  type TraceContext,
} from "@ramp/runtime";
import type { Db } from "mongodb";
import type { BankRail } from "../rails/bank-rail.ts";

interface PayoutDoc {
  _id: string; // orderId: one payout per order
  command: PayoutCommand;
  status: "PENDING" | "COMPLETED" | "FAILED";
  reference: string | null;
  reason: string | null;
  createdAt: Date;
  outbox: OutboxEntry[];
}

/**
 * Pays one order once. The record is created before the rail is asked; the rail is idempotent per
 * order, so a crash between asking and recording just asks again and gets the same answer.
 */
export function createPayouts(deps: { db: Db; rail: BankRail; js: JetStreamClient; log: Logger }) {
  const col = deps.db.collection<PayoutDoc>("payouts");
  return {
    collection: col,
    async handle(command: PayoutCommand, trace: TraceContext): Promise<void> {
      try {
        await col.insertOne({
          _id: command.orderId,
          command,
          status: "PENDING",
          reference: null,
          reason: null,
          createdAt: new Date(),
          outbox: [],
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const current = await col.findOne({ _id: command.orderId });
      if (current && current.status === "PENDING") {
        const result = await deps.rail.payout(command);
        await col.updateOne(
          { _id: command.orderId, status: "PENDING" },
          {
            $set: { status: result.status, reference: result.reference, reason: result.reason },
            $push: {
              outbox: outboxEntry(
                Events.payoutResult,
                {
                  orderId: command.orderId,
                  status: result.status,
                  reference: result.reference,
                  reason: result.reason,
                },
                `payout:${command.orderId}`,
                trace,
              ),
            },
          },
        );
        deps.log.info(
          { orderId: command.orderId, status: result.status, reference: result.reference },
          "payout answered by rail",
        );
      }
      await flushOutbox(deps.js, col, command.orderId, deps.log);
    },
  };
}
