import { type ConnectionOptions, nkeyAuthenticator } from "@nats-io/transport-node";
import { inboxPrefix, type ServiceName } from "@ramp/contracts";

/**
 * How a service identifies itself to NATS: its nkey (the server holds only the public key and grants the
 * permissions derived from contracts) and its own reply-inbox prefix, the only inboxes it may read.
 * Without a seed the connection is anonymous, which a server configured by this project refuses.
 */
export function natsIdentity(
  service: ServiceName,
  nkeySeed?: string,
): Pick<ConnectionOptions, "name" | "inboxPrefix" | "authenticator"> {
  return {
    name: service,
    inboxPrefix: inboxPrefix(service),
    ...(nkeySeed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(nkeySeed)) } : {}),
  };
}
