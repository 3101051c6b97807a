import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import type { KeyStore } from "../auth/api-keys.ts";

/** What the admin API and the console both do to businesses and keys, written once. */
export function businessOps(nc: NatsConnection, keys: KeyStore) {
  const issueKeyWithSecret = async (businessId: string, trace: TraceContext, name?: string) => {
    const { apiKey, apiKeyId } = await keys.issueKey(businessId, name);
    const { webhookSecret } = await callRpc(nc, Rpc.webhookConfigGet, { apiKeyId }, trace);
    return { id: apiKeyId, apiKey, webhookSecret };
  };
  return {
    issueKeyWithSecret,
    /** Pricing is told the fee before the business exists for anyone, so its first order is priced right. */
    async createBusiness(name: string, feeBps: number, trace: TraceContext) {
      const { id } = await keys.createBusiness(name);
      await callRpc(nc, Rpc.profileSet, { businessId: id, feeBps }, trace);
      const { apiKey, webhookSecret } = await issueKeyWithSecret(id, trace);
      return { id, name, apiKey, webhookSecret };
    },
  };
}
