import { Kind } from "@sinclair/typebox";

/**
 * Elysia's ValidationError prints, in its constructor, the whole refused body indented together
 * with up to 64 errors each holding its failing value — unless the schema node that failed carries
 * its own `error`, which then becomes the message as it is. Our error handler never uses that
 * message (it words the refusal from `valueError`, see error-handler.ts), so the printing was pure
 * cost: a 14 MB body nested 63 levels, under the depth and size limits, held the event loop for
 * 6.5–16 s before its 400, with every request of every organization waiting.
 *
 * So every node of every route's body schema gets a small `error` object: Elysia then makes its
 * message from that object alone. It is not enumerable, so the OpenAPI document does not list it,
 * and not a string, so validation-message.ts does not take it for a field's own wording.
 */
const QUIET = Object.freeze({ type: "validation" });

/** Only schema nodes: a `properties` map marked too would gain a property named "error" in Elysia's copies. */
const isSchema = (v: object) => Kind in v;

/** Marks `schema` and every schema inside it; a node with its own `error` keeps it. */
function mark(schema: unknown, seen: Set<object>): void {
  if (schema === null || typeof schema !== "object" || seen.has(schema)) return;
  seen.add(schema);
  if (isSchema(schema) && !Object.prototype.hasOwnProperty.call(schema, "error")) {
    Object.defineProperty(schema, "error", { value: QUIET, enumerable: false });
  }
  for (const value of Object.values(schema)) mark(value, seen);
}

/** Called once the app's routes are all registered, before the first request builds a validator. */
export function quietBodyRefusals(routes: readonly { hooks?: { body?: unknown } }[]): void {
  const seen = new Set<object>();
  for (const r of routes) mark(r.hooks?.body, seen);
}
