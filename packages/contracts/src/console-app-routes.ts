import { z } from "zod";
import type { RouteDef } from "./http/route.ts";
import { boundedString } from "./text.ts";

/** One path segment of the web console: a page name, an id, or a built asset's file name. */
const Segment = boundedString(200);
const html = { status: 200, schema: z.string(), contentType: "text/html; charset=utf-8" } as const;

/**
 * The web console (packages/console) as the gateway serves it: its built files, and index.html for
 * every page path under /console/ so the browser's own router shows the page. Two levels deep is
 * all the console uses (`/console/keys`, `/console/assets/<file>`, `/console/transactions/<id>`).
 */
export const ConsoleAppRoutes = {
  consoleAppHome: {
    method: "get",
    path: "/console/",
    summary: "The web console",
    tag: "WebConsole",
    auth: "none",
    ok: html,
    errors: [],
  },
  consoleAppPage: {
    method: "get",
    path: "/console/{page}",
    summary: "A page of the web console (its index.html), or one of its top-level files",
    tag: "WebConsole",
    auth: "none",
    params: z.strictObject({ page: Segment }),
    ok: html,
    errors: [404],
  },
  consoleAppFile: {
    method: "get",
    path: "/console/{page}/{file}",
    summary: "A built asset of the web console, or a page below another (its index.html)",
    tag: "WebConsole",
    auth: "none",
    params: z.strictObject({ page: Segment, file: Segment }),
    ok: html,
    errors: [404],
  },
} as const satisfies Record<string, RouteDef>;
