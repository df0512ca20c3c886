const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE";
const ALLOW_HEADERS = "Authorization, X-Access-Token, Content-Type, Accept, Last-Event-ID";
/** What a browser script may read beyond the basics: the storage PUT's checksum and timing. */
const EXPOSE_HEADERS = "ETag, x-amz-checksum-sha256, Server-Timing";

/**
 * Cross-origin access for browsers (spec: access tokens are for untrusted clients such as
 * browsers; the widget is embedded in other sites), on the API and the presigned storage URLs.
 * Credentials travel in headers, never cookies, so allowing any origin ("*", the default) lets
 * no site act with a visitor's ambient credentials; an operator may still list origins or turn
 * it off ("none").
 */
export type CorsHook = (request: Request, set: { headers: Record<string, string | number> }) => Response | undefined;

/** The CORS step of the app's single onRequest hook (each extra Elysia hook costs every request). */
export function cors(setting: string): CorsHook {
  if (setting === "none") return () => undefined;
  const listed = setting === "*" ? null : new Set(setting.split(",").map((s) => s.trim().replace(/\/+$/, "")));
  return (request, set) => {
    // With a list, every answer varies on Origin, those to requests without one included: a
    // cache keeping one of those (no allow-origin header) would hand it to a listed site's browser.
    if (listed !== null) set.headers.vary = "Origin";
    const origin = request.headers.get("origin");
    if (!origin) return;
    const allowed = listed === null ? "*" : listed.has(origin) ? origin : null;
    if (allowed === null) return; // the browser then refuses the response itself
    set.headers["access-control-allow-origin"] = allowed;
    set.headers["access-control-expose-headers"] = EXPOSE_HEADERS;
    if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
      return new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-origin": allowed,
          "access-control-allow-methods": ALLOW_METHODS,
          "access-control-allow-headers": ALLOW_HEADERS,
          "access-control-max-age": "600",
          ...(listed !== null ? { vary: "Origin" } : {}),
        },
      });
    }
  };
}
