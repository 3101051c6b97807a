export { GatewayConfig, loadGatewayConfig } from "./config.ts";
export { totpCode } from "./people/totp.ts";
export { startGateway } from "./service.ts";
