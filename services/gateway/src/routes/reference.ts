import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument, Routes } from "@ramp/contracts";
import { Scalar } from "@scalar/hono-api-reference";
import type { Context } from "hono";
import type { Register } from "../register.ts";

// From the installed package, whose version package.json pins exactly: the page and its script match.
const bundleFile = fileURLToPath(
  new URL("./browser/standalone.js", import.meta.resolve("@scalar/api-reference")),
);

/**
 * `/openapi.json`, and `/docs` (the interactive reference over it) with the reference UI's script
 * served by the gateway itself: nothing is fetched from a CDN, so `/docs` works with no internet.
 */
export function referenceRoutes(register: Register, publicBaseUrl: string) {
  const openapi = buildOpenApiDocument(publicBaseUrl);
  register(Routes.openApiDocument, (c) => c.json(openapi));

  let bundle: Promise<Buffer> | undefined;
  register(Routes.docsScript, async (c) => {
    bundle ??= readFile(bundleFile);
    c.header("cache-control", "public, max-age=86400");
    return new Uint8Array(await bundle);
  });

  const page = Scalar({
    url: Routes.openApiDocument.path,
    pageTitle: "Ramp API v2",
    cdn: Routes.docsScript.path,
    // The default fonts come from fonts.scalar.com; the system fonts need no network.
    withDefaultFonts: false,
  });
  register(
    Routes.docsPage,
    async (c) => (await page(c as unknown as Context, async () => {})) ?? c.notFound(),
  );
}
