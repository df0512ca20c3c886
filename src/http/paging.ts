import { t } from "elysia";
import { Kind, TypeRegistry } from "@sinclair/typebox";

// Elysia coerces arrays and strings into records; metadata must be a real JSON object, so it
// gets its own kind that no coercion touches.
TypeRegistry.Set("JsonObject", (_s, v) => typeof v === "object" && v !== null && !Array.isArray(v));

/** The spec's paging parameters; out of range → 400 naming the parameter. */
export const PageQuery = {
  pageSize: t.Optional(t.Integer({ title: "pageSize", minimum: 1, maximum: 100, default: 25, description: "1 to 100, default 25" })),
  pageIndex: t.Optional(t.Integer({ title: "pageIndex", minimum: 0, default: 0, description: "zero-based, default 0" })),
};

export interface Paging {
  pageSize: number;
  pageIndex: number;
}

export const paging = (q: { pageSize?: number; pageIndex?: number }): Paging => ({
  pageSize: q.pageSize ?? 25,
  pageIndex: q.pageIndex ?? 0,
});

/**
 * Rows to skip for a page. Any pageIndex of 0 or more is valid, however large: past the last
 * row the page is empty. Clamped so the product stays an exact integer SQLite accepts as OFFSET
 * (a float such as 1e300 would be refused: "datatype mismatch").
 */
export const offsetOf = (p: Paging): number => Math.min(p.pageIndex * p.pageSize, Number.MAX_SAFE_INTEGER);

export const JsonObject = (description = "free-form JSON object") =>
  t.Unsafe<Record<string, unknown>>({ [Kind]: "JsonObject", type: "object", additionalProperties: true, description });
export const Metadata = JsonObject();

export const Ack = t.Object({ timestamp: t.String(), message: t.String() });
export const ack = (message: string, now: number) => ({ timestamp: new Date(now).toISOString(), message });
