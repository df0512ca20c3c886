import { Elysia } from "elysia";
import type { Logger } from "../context.ts";
import { AppError, errorBody, STATUS_OF, volumeError, type ErrorCode } from "./errors.ts";

/** Model-layer errors are plain classes (src/models has no HTTP dependency); this is their status. */
const MODEL_ERROR_CODES: Record<string, ErrorCode> = {
  UNKNOWN_MODEL: "BAD_REQUEST",
  MODEL_BUSY: "UNAVAILABLE",
  ABORTED: "UNAVAILABLE",
  REMOTE_MODEL_ERROR: "BAD_GATEWAY",
};

/**
 * A request refused before its body was read (too large, no credential) may still be sending:
 * the connection is closed, or the client's next request on it would wait behind those bytes.
 */
const unread = (r: Request) => r.body !== null && !r.bodyUsed;

const jsonFor = (request: Request) => (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: unread(request) ? { "content-type": "application/json", connection: "close" } : { "content-type": "application/json" },
  });

interface ValidationLike {
  type?: string;
  on?: string;
  all?: { path?: string; message?: string; summary?: string; schema?: { title?: string } }[];
  message?: string;
}

/** "body field 'pageSize': Expected integer" — names the field at fault. */
export function describeValidation(e: ValidationLike): string {
  const first = e.all?.[0];
  const on = e.on ?? e.type;
  const where = on === "property" ? "query parameter" : on === "params" ? "path parameter" : on === "query" ? "query parameter" : on === "headers" ? "header" : "body field";
  // Elysia validates numeric query parameters one by one and loses their name; such schemas
  // carry it as `title` (see http/paging.ts).
  const field = first?.path ? first.path.replace(/^\//, "").replace(/\//g, ".") : (first?.schema?.title ?? "");
  const what = first?.summary || first?.message || "invalid value";
  return field ? `Invalid ${where} '${field}': ${what}` : `Invalid request ${on ?? "body"}: ${what}`;
}

/** The one place that turns any thrown thing into the spec's error object. */
export function errorHandler(log: Logger) {
  return new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request, path }) => {
    const p = path ?? new URL(request.url).pathname;
    const json = jsonFor(request);
    if (error instanceof AppError) return json(error.status, errorBody(error.status, error.message, p, error.details));
    const modelCode = MODEL_ERROR_CODES[(error as { code?: string })?.code ?? ""];
    if (modelCode) return json(STATUS_OF[modelCode], errorBody(STATUS_OF[modelCode], (error as Error).message, p));
    switch (code) {
      case "VALIDATION":
        return json(400, errorBody(400, describeValidation(error as unknown as ValidationLike), p));
      case "PARSE":
        return json(400, errorBody(400, "Malformed request body: expected valid JSON", p));
      case "NOT_FOUND":
        return json(404, errorBody(404, `No route for ${request.method} ${p}`, p));
    }
    const status = (error as { status?: number })?.status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      return json(status, errorBody(status, String((error as Error).message ?? "Bad request"), p));
    }
    const volume = volumeError(error);
    if (volume) {
      // The operator's problem, not the client's and not a bug: a precise status and no stack.
      log.error("data volume failure", { path: p, method: request.method, error: String((error as Error)?.message ?? error) });
      return json(volume.status, errorBody(volume.status, volume.message, p));
    }
    log.error("unhandled error", { path: p, method: request.method, error: String((error as Error)?.stack ?? error) });
    return json(500, errorBody(500, "Unexpected server error; it has been logged", p));
  });
}
