import { BaseConfig, loadConfig } from "@ramp/runtime";
import type { z } from "zod";

export const OrdersConfig = BaseConfig.extend({});
export type OrdersConfig = z.infer<typeof OrdersConfig>;
export const loadOrdersConfig = (env: Record<string, string | undefined>) => loadConfig(OrdersConfig, env);
