import { Elysia } from "elysia";
// Imported as files: `bun build --compile` embeds them, so the executable serves them offline too.
import bundlePath from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import cssPath from "swagger-ui-dist/swagger-ui.css" with { type: "file" };

/** Where /docs loads Swagger UI from: this server, never a CDN (air-gapped installs get a working page). */
export const DOCS_ASSETS = { cdn: "/docs/assets/swagger-ui-bundle.js", theme: "/docs/assets/swagger-ui.css" } as const;

/**
 * For the app's request hook: /docs/ → 301 /docs. The page loads its document from the relative
 * URL "openapi.json" (the plugin's choice), which under /docs/ is /docs/openapi.json, a 404:
 * Swagger UI showed an error instead of the API. Elysia's router takes /docs/ for /docs, so no
 * route can tell them apart; one string test per request can.
 */
export const docsSlash = (request: Request): Response | undefined =>
  request.url.endsWith("/docs/") && new URL(request.url).pathname === "/docs/"
    ? new Response(null, { status: 301, headers: { location: "/docs" } })
    : undefined;

export function docsAssets() {
  const serve = (path: string, type: string) => () =>
    new Response(Bun.file(path), { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
  return new Elysia({ name: "docs-assets", detail: { hide: true } })
    .get(DOCS_ASSETS.cdn, serve(bundlePath, "text/javascript; charset=utf-8"), { detail: { hide: true } })
    .get(DOCS_ASSETS.theme, serve(cssPath, "text/css; charset=utf-8"), { detail: { hide: true } });
}
