import { Routes } from "@ramp/contracts";

/** `/console`, read from the route table: the console's pages and its API live under it. */
const CONSOLE_PREFIX = `/${Routes.consoleMe.path.split("/")[1]}`;

/** Whether a request path is the console's (a page, a built file or its API). */
export const isConsolePath = (path: string) =>
  path === CONSOLE_PREFIX || path.startsWith(`${CONSOLE_PREFIX}/`);
