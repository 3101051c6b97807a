// `npm run nats:keys >> .env`: a fresh nkey per service for docker compose. The seeds are secrets: each
// goes only to its service; nats-server gets only the public keys.
import { createNatsCredentials, natsEnvLines } from "@ramp/devinfra";

process.stdout.write(natsEnvLines(createNatsCredentials()));
