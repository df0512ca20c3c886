import { Elysia } from "elysia";
import type { Logger } from "../context.ts";
import type { ValueError } from "@sinclair/typebox/errors";
import { explain } from "./validation-message.ts";
import { AppError, errorBody, STATUS_OF, volumeError, type ErrorCode } from "./errors.ts";
import { loggedPath } from "./request-log.ts";

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

interface TimeoutServer {
  timeout(request: Request, seconds: number): void;
}

/**
 * `Connection: close` alone does not close anything in Bun 1.3: with the body unread the socket
 * stayed open until the 255 s idle timeout, and a client reusing it (Bun's fetch does) waited
 * that long. A one-second idle timeout on this request's connection closes it once the answer
 * is out and the client has stopped sending.
 */
export function closeAfterAnswer(server: TimeoutServer | null | undefined, request: Request): Record<string, string> {
  if (!unread(request)) return {};
  server?.timeout(request, 1);
  return { connection: "close" };
}

const jsonFor = (request: Request, server: TimeoutServer | null | undefined, set: { status?: unknown }) => (status: number, body: unknown, extra: Record<string, string> = {}) => {
  set.status = status; // what --log-requests reports (request-log.ts): Elysia leaves 500 there otherwise
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...extra, ...closeAfterAnswer(server, request) } });
};

/** A 405 must say what is served (RFC 9110): a refusal thrown with `allowed` also gets its Allow header. */
const allowHeader = (e: AppError): Record<string, string> => {
  const allowed = e.details?.allowed;
  return e.status === 405 && Array.isArray(allowed) ? { allow: allowed.join(", ") } : {};
};

interface ValidationLike {
  type?: string;
  on?: string;
  valueError?: ValueError;
  all?: (ValueError & { summary?: string })[];
  message?: string;
}

const PART: Record<string, string> = { property: "query parameter", query: "query parameter", params: "path parameter", headers: "header" };

/**
 * "Invalid body field 'tags[1]': must be a string of at most 64 characters" — names the field at
 * fault and what it allows. `inQuery` tells whether the request's query string has a parameter.
 */
export function describeValidation(e: ValidationLike, inQuery: (name: string) => boolean = () => true): string {
  const on = e.on ?? e.type ?? "body";
  const first = e.valueError ?? e.all?.[0];
  if (!first) return `Invalid request ${on}`;
  const fault = explain(first);
  // Elysia validates numeric query parameters one by one and loses their name; such schemas
  // carry it as `title` (see http/paging.ts). A path parameter whose router name differs from
  // the spec's carries the spec's name the same way (posts/routes.ts).
  const title = (first.schema as { title?: string } | undefined)?.title ?? "";
  // A body number sent in its string form ("500") fails the same way, also as "property", once
  // decoded: its schema carries its name as `title` too (agents/schema.ts), and the query says
  // which of the two it was.
  const where = on === "property" && title && !inQuery(title) ? "body field" : (PART[on] ?? "body field");
  const field = (on === "params" && title) || fault.path || title;
  if (field) return `Invalid ${where} '${field}': ${fault.problem}`;
  return `Invalid request ${on}: ${fault.problem}`;
}

/** The one place that turns any thrown thing into the spec's error object. */
export function errorHandler(log: Logger) {
  return new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request, path, server, set }) => {
    const p = path ?? new URL(request.url).pathname;
    const json = jsonFor(request, server, set);
    if (error instanceof AppError) return json(error.status, errorBody(error.status, error.message, p, error.details), allowHeader(error));
    const modelCode = MODEL_ERROR_CODES[(error as { code?: string })?.code ?? ""];
    if (modelCode) return json(STATUS_OF[modelCode], errorBody(STATUS_OF[modelCode], (error as Error).message, p));
    switch (code) {
      case "VALIDATION":
        // An answer failing its own schema is the server's fault, raised after the work was
        // done (a document stored, a change applied): a 400 naming a "body field" told the
        // client its request was refused when it was not, and logged nothing.
        if ((error as unknown as ValidationLike).type === "response") {
          log.error("response failed its schema", { path: loggedPath(p), method: request.method, error: describeValidation(error as unknown as ValidationLike) });
          return json(500, errorBody(500, "Unexpected server error; it has been logged", p));
        }
        return json(400, errorBody(400, describeValidation(error as unknown as ValidationLike, (name) => new URL(request.url).searchParams.has(name)), p));
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
      log.error("data volume failure", { path: loggedPath(p), method: request.method, error: String((error as Error)?.message ?? error) });
      return json(volume.status, errorBody(volume.status, volume.message, p));
    }
    log.error("unhandled error", { path: loggedPath(p), method: request.method, error: String((error as Error)?.stack ?? error) });
    return json(500, errorBody(500, "Unexpected server error; it has been logged", p));
  });
}
