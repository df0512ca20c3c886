import { t } from "elysia";
import { FormatRegistry } from "@sinclair/typebox";
import { dateTimeShaped } from "../store/time.ts";
// Imported for its side effect before the format below is registered: the OpenAPI plugin, when
// loaded, replaces TypeBox's global "uuid" check with one that builds a zod schema on every
// call. Every `format: "uuid"` path parameter and response field paid that (about half of an
// authenticated GET /v1/corpus/{id} in a CPU profile), so the check is put back afterwards.
import "@elysiajs/openapi";

/**
 * The project's UUID rule, unchanged from what the plugin enforced (zod's `uuid()`): RFC 9562
 * versions 1–8 with the RFC variant, plus the nil and max UUIDs; either case; no `urn:uuid:`.
 * Compiled once instead of per value.
 */
export const UUID_RE =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
export const isUuid = (value: string): boolean => UUID_RE.test(value);
FormatRegistry.Set("uuid", isUuid);

/**
 * The string form Elysia's t.Integer and t.Numeric accept for a number ("5", in a query string
 * or a JSON body alike) must be a decimal number. Elysia's own check read it with `+value`, so a
 * body's `"   "` passed as 0, `"0x10"` as 16 and `"1e1"` as 10: `{"historySize":"   "}` stored
 * 0 with a 200. Query strings already had this rule (query-once.ts), checked first there.
 */
const DECIMAL = /^[+-]?\d+(\.\d+)?$/;
FormatRegistry.Set("numeric", (value) => DECIMAL.test(value));
FormatRegistry.Set("integer", (value) => DECIMAL.test(value) && Number.isInteger(Number(value)));

/**
 * Timestamps are published as `date-time` (paging.ts Timestamp). Elysia's own check refused a
 * time without a zone ("2024-01-02T03:04:05"), which the server has always taken as UTC: the
 * shape the server's parser reads decides, so publishing the format refuses nothing that was
 * accepted. The shape only: parseTime's range checks (2024-02-30) stay with the services, which
 * parse every timestamp they take. A response check of a 100-document page took 0.67 ms with
 * parseTime behind the format, 0.08-0.09 ms with the shape alone, 0.02-0.05 ms without the
 * format (scripts/bench-timestamp-check.ts, best of 5-7 rounds). toISOString's six-digit signed
 * year passes too: a docCreate stored so by an older version must read back (store/time.ts);
 * new values stay within four-digit years (documents/fields.ts timeField).
 */
FormatRegistry.Set("date-time", dateTimeShaped);

/**
 * Fields the service does not know are accepted and ignored (spec, Versioning rule 3).
 * Elysia's normalizers would strip them, but they cost more than the whole authenticated
 * request on hot routes, so the app runs with `normalize: false` and every object schema
 * instead allows additional properties unless it says otherwise. Services read only the
 * fields they know, so extra ones are ignored. Must be imported before any schema module.
 */
const original = t.Object;
(t as { Object: typeof t.Object }).Object = ((properties: Parameters<typeof t.Object>[0], options?: Parameters<typeof t.Object>[1]) =>
  original(properties, { additionalProperties: true, ...options })) as typeof t.Object;
