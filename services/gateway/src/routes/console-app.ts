import { readFile } from "node:fs/promises";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Routes } from "@ramp/contracts";
import type { Context } from "hono";
import type { GatewayEnv } from "../env.ts";
import type { Register } from "../register.ts";

/** Where `pnpm --filter @ramp/console build` writes the web console, in this repository. */
export const CONSOLE_DIST = fileURLToPath(new URL("../../../../packages/console/dist", import.meta.url));

/**
 * The console's page runs only the gateway's own scripts and styles (its index.html has nothing
 * inline), is never framed, and sends no referrer: a session cookie's page gets the strict set.
 */
export const CONSOLE_PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
} as const;

/** `v1` of `/console/v1/…`, read from the route table. */
const API_SEGMENT = Routes.consoleMe.path.split("/")[2] ?? "v1";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".html": "text/html; charset=utf-8",
};

/**
 * `/console/…`: a path with a file extension is a built file (404 when there is none); any other
 * path is a page of the console's own router, answered with index.html.
 */
export function consoleAppRoutes(register: Register, dir = CONSOLE_DIST) {
  const root = resolve(dir);
  const read = async (rel: string) => {
    const path = resolve(root, rel);
    // Parameters arrive decoded: `..%2F` must not reach outside the build.
    if (!path.startsWith(root + sep)) return undefined;
    try {
      return new Uint8Array(await readFile(path));
    } catch {
      return undefined;
    }
  };

  async function serve(c: Context<GatewayEnv>, rel: string) {
    // The console API's paths are never pages: an unknown one stays a JSON 404.
    if (rel === API_SEGMENT || rel.startsWith(`${API_SEGMENT}/`)) return c.notFound();
    for (const [name, value] of Object.entries(CONSOLE_PAGE_HEADERS)) c.header(name, value);
    const type = TYPES[extname(rel)];
    if (rel !== "" && extname(rel) !== "") {
      const body = type ? await read(rel) : undefined;
      if (!body || !type) return c.notFound();
      // Vite names built assets by their content hash: a changed file is a new name.
      c.header(
        "cache-control",
        rel.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache",
      );
      return c.body(body, 200, { "content-type": type });
    }
    const page = await read("index.html");
    if (!page) {
      return c.text(
        "The web console is not built: run `pnpm --filter @ramp/console build` (npm start does).",
        503,
      );
    }
    c.header("cache-control", "no-cache");
    return c.body(page, 200, { "content-type": "text/html; charset=utf-8" });
  }

  register(Routes.consoleAppHome, (c) => serve(c, ""));
  register(Routes.consoleAppPage, (c, { params }) => serve(c, params.page));
  register(Routes.consoleAppFile, (c, { params }) => serve(c, `${params.page}/${params.file}`));
}
