// Setup file of the integration project: test connections "as a service" carry that service's NATS
// identity and sign what they publish, exactly as the service's own connection does.
import { connect } from "@nats-io/transport-node";
import { useServiceConnector } from "@ramp/devinfra/testing";
import { bindSigning, messageSigningFor, natsIdentity } from "@ramp/runtime";

useServiceConnector(async (servers, service, { seed, peerKeys }) => {
  const nc = await connect({ servers, ...natsIdentity(service, seed) });
  bindSigning(nc, messageSigningFor(service, { NATS_NKEY_SEED: seed, NATS_PEER_KEYS: peerKeys }));
  return nc;
});
