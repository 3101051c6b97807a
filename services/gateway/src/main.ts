import { runMain } from "@ramp/runtime";
import { loadGatewayConfig } from "./config.ts";
import { startGateway } from "./service.ts";

runMain("gateway", () => startGateway(loadGatewayConfig(process.env)));
