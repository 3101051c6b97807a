import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Scalar } from "@scalar/hono-api-reference";
import type { Hono } from "hono";
import type { GatewayEnv } from "./env.ts";

/** The reference UI's script, served by the gateway itself: `/docs` works with no internet. */
export const DOCS_BUNDLE_PATH = "/docs/assets/api-reference.js";

// From the installed package, whose version package.json pins exactly: the page and its script match.
const bundleFile = fileURLToPath(
  new URL("./browser/standalone.js", import.meta.resolve("@scalar/api-reference")),
);

/** `/docs` (the interactive reference over `/openapi.json`) and its script; nothing is fetched from a CDN. */
export function registerDocs(app: Hono<GatewayEnv>) {
  let bundle: Promise<Buffer> | undefined;
  app.get(DOCS_BUNDLE_PATH, async (c) => {
    bundle ??= readFile(bundleFile);
    c.header("cache-control", "public, max-age=86400");
    return c.body(new Uint8Array(await bundle), 200, { "content-type": "text/javascript; charset=utf-8" });
  });
  app.get(
    "/docs",
    Scalar({
      url: "/openapi.json",
      pageTitle: "Ramp API v2",
      cdn: DOCS_BUNDLE_PATH,
      // The default fonts come from fonts.scalar.com; the system fonts need no network.
      withDefaultFonts: false,
    }),
  );
}
