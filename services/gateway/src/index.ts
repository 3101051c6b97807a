export { GatewayConfig, loadGatewayConfig } from "./config.ts";
export { startGateway } from "./service.ts";
