export { loadOrdersConfig, OrdersConfig } from "./config.ts";
export { startOrders } from "./service.ts";
