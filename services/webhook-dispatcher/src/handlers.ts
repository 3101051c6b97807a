import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { type Logger, serveRpc } from "@ramp/runtime";
import type { ConfigStore } from "./config-store.ts";

const QUEUE = "webhook-dispatcher";

export interface HandlerDeps {
  nc: NatsConnection;
  log: Logger;
  configs: ConfigStore;
}

/** The request/reply side: config, test sends and the delivery log. */
export function serveHandlers({ nc, log, configs }: HandlerDeps) {
  return [
    serveRpc(nc, Rpc.webhookConfigGet, QUEUE, log, ({ apiKeyId }) => configs.get(apiKeyId)),
    serveRpc(nc, Rpc.webhookConfigUpdate, QUEUE, log, async ({ apiKeyId, body }, ctx) => {
      const updated = await configs.update(apiKeyId, body);
      ctx.log.info(
        {
          apiKeyId,
          fields: Object.keys(body),
          ramp: !!updated.rampWebhookURL,
          payment: !!updated.paymentWebhookURL,
        },
        "webhook config updated",
      );
      return updated;
    }),
  ];
}
