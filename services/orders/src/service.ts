import { bootService } from "@ramp/runtime";
import type { OrdersConfig } from "./config.ts";

export async function startOrders(config: OrdersConfig) {
  return bootService("orders", config, async () => []);
}
