import { isUuid } from "./typebox-setup.ts";

/**
 * Fields that hold one of the service's ids (uuids), in path parameters, query parameters and
 * request bodies. `userId` is not among them: it is the caller's own identifier, any string.
 */
const ID_FIELDS = new Set(["id", "agentId", "chunkId", "corpusId", "corpusIds", "docId", "documentId", "postId", "sessionId"]);

const lower = (v: unknown): unknown => (typeof v === "string" && /[A-F]/.test(v) && isUuid(v) ? v.toLowerCase() : v);

/**
 * UUIDs are case-insensitive (RFC 9562) and the uuid format accepts either case, but the
 * service stores and compares them in lower case: an id in upper case (Swift's `uuidString`,
 * .NET's "D" format upper-cased by a client) answered 404 for one's own corpus. Ids are lower-
 * cased in place before validation and lookup; nothing else in the request is touched.
 */
export function lowerCaseIds(fields: unknown): void {
  if (fields === null || typeof fields !== "object" || Array.isArray(fields)) return;
  const o = fields as Record<string, unknown>;
  for (const k in o) {
    if (!ID_FIELDS.has(k)) continue;
    const v = o[k];
    o[k] = Array.isArray(v) ? v.map(lower) : lower(v);
  }
}
