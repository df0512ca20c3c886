import { Elysia } from "elysia";
import type { Logger } from "../context.ts";

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
      log.info("request", { method: request.method, path, status, ms: t === undefined ? null : Math.round((performance.now() - t) * 10) / 10 });
    });
}
