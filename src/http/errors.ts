/**
 * One error type for everything a client may see. Services throw AppError; the single
 * handler in http/error-handler.ts renders the spec's error object. The status map is a
 * Record over every code, so adding a code without a status fails to compile.
 */
import { storageFailure, STORAGE_FAILURE_MESSAGE } from "../store/storage-errors.ts";

export type ErrorCode =
  | "BAD_REQUEST"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "PRECONDITION_FAILED"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "TIMEOUT"
  | "UNAVAILABLE"
  | "INSUFFICIENT_STORAGE"
  | "BAD_GATEWAY"
  | "INTERNAL";

export const STATUS_OF: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
  BAD_GATEWAY: 502,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
  INSUFFICIENT_STORAGE: 507,
};

export const REASON_OF: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  412: "Precondition Failed",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  507: "Insufficient Storage",
};

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields merged into the error object (for example the id of a duplicate). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = STATUS_OF[code];
  }
}

/** A failure of the data volume (full, read-only) as clients get it; null for any other error. */
export function volumeError(e: unknown): AppError | null {
  const f = storageFailure(e);
  return f && new AppError(f === "full" ? "INSUFFICIENT_STORAGE" : "UNAVAILABLE", STORAGE_FAILURE_MESSAGE[f]);
}

export const badRequest = (m: string) => new AppError("BAD_REQUEST", m);
export const forbidden = (m = "Access denied") => new AppError("FORBIDDEN", m);
/** `field`: the request field whose id names nothing, so a client sending several ids knows which one. */
export const notFound = (what: string, field?: string) => new AppError("NOT_FOUND", `${what} not found${field ? ` (field '${field}')` : ""}`);
export const conflict = (m: string, details?: Record<string, unknown>) => new AppError("CONFLICT", m, details);

export interface ErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message: string;
  path: string;
  [k: string]: unknown;
}

export function errorBody(status: number, message: string, path: string, details?: Record<string, unknown>): ErrorBody {
  return {
    ...details,
    timestamp: new Date().toISOString(),
    status,
    error: REASON_OF[status] ?? "Error",
    message,
    path,
  };
}
