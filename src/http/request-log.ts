import { Elysia } from "elysia";
import type { Logger } from "../context.ts";

/**
 * A path as the logs may hold it. The revocation path carries an access token itself
 * (DELETE /v1/auth/access-token/{token}), and a revocation that fails (an expired JWT, another
 * organization's, a typo, a server error) leaves that token live: it is never written out.
 */
export function loggedPath(path: string): string {
  return path.replace(/^(\/v1\/auth\/access-token\/)[^/]+/, "$1(token)");
}

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
