import { runMain } from "@ramp/runtime";
import { loadOrdersConfig } from "./config.ts";
import { startOrders } from "./service.ts";

runMain("orders", () => startOrders(loadOrdersConfig(process.env)));
