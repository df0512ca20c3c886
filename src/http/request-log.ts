import { Elysia } from "elysia";
import type { Logger } from "../context.ts";

/**
 * A path as the logs may hold it. The revocation path carries an access token itself
 * (DELETE /v1/auth/access-token/{token}), and a revocation that fails (an expired JWT, another
 * organization's, a typo, a server error) leaves that token live: it is never written out.
 */
export function loggedPath(path: string): string {
  return path.replace(AFTER_TOKEN_SEGMENT, "$1(token)").replace(TOKEN_LIKE, "(token)");
}

/**
 * Matched anywhere and in any spelling the router refuses: a revocation sent to a mistyped path
 * (`/v1/auth//access-token/…` from a base URL ending in a slash, `/V1/…`, `access%2Dtoken`)
 * answers 404 or 403 and leaves the token live, so the log must not hold it either.
 */
const AFTER_TOKEN_SEGMENT = /(\/access(?:-|%2d)token\/+)[^/]+/gi;
/**
 * What mint() in auth/tokens.ts produces (43 base64url characters after the prefix, whose
 * underscore a client may percent-encode), in any segment; a shorter run is no credential.
 */
const TOKEN_LIKE = /kbqa(?:_|%5f)[A-Za-z0-9_-]{43,}/gi;

/**
 * `--log-requests`: one line per request once its answer is sent: method, path (never the query,
 * which may carry a presigned URL's signature or a question), status and milliseconds. Installed
 * only when asked for, because every hook costs every request.
 */
export function requestLog(log: Logger) {
  const started = new WeakMap<Request, number>();
  return new Elysia({ name: "request-log" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, path, set, responseValue }) => {
      const t = started.get(request);
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      log.info("request", { method: request.method, path: loggedPath(path), status, ms: t === undefined ? null : Math.round((performance.now() - t) * 10) / 10 });
    });
}
