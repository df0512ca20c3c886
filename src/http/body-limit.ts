import { AppError, badRequest } from "./errors.ts";
import { MAX_JSON_DEPTH } from "./paging.ts";

/** Largest request body an API route reads. Document bytes go to /storage/, which has its own limit. */
export const API_BODY_MAX = 16 * 1024 * 1024;

/**
 * Bun refuses a body over the server's `maxRequestBodySize` with a bare 413 — no error object,
 * no S3 error — before any route sees it. The server's own limit is therefore set far above
 * every real one (server.ts), and the limits are enforced where the answer can be explained:
 * in the API routes' parse hook (auth-plugin.ts), in the storage route for uploads
 * (`--max-upload-bytes`).
 */
export const SERVER_BODY_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * The parsed body of a request refused before validation: too large, not a JSON object, or
 * holding ill-formed text. Elysia reports anything thrown while parsing as a malformed body, so
 * the parse hook returns this instead, and the auth plugin throws `error` once the credential is
 * checked (a client without one learns nothing else: 403 first).
 */
export class RefusedBody {
  constructor(readonly error: AppError) {}
}

const tooLarge = (what: string) => new RefusedBody(new AppError("PAYLOAD_TOO_LARGE", `The request body ${what}; the API accepts at most ${API_BODY_MAX} bytes`));

/** The body's bytes, or null once they pass `max` (reading stops there). */
async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | null> {
  const parts: Uint8Array[] = [];
  let n = 0;
  // A reader, not `for await`: Bun 1.3's async iterator of a request body threw "undefined is
  // not a function" once the request had waited on a promise (a JWT seen for the first time is
  // verified asynchronously), so every such body not declared as JSON was "malformed".
  const reader = body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    n += r.value.byteLength;
    if (n > max) {
      void reader.cancel().catch(() => {});
      return null;
    }
    parts.push(r.value);
  }
  return Buffer.concat(parts);
}

/**
 * JSON travels as UTF-8. A lenient decoder turned every byte that is no UTF-8 (a Latin-1 "é"
 * sent by a client that did not encode its text) into U+FFFD, so `{"name":"caf\xe9"}` stored
 * "caf�": the client's text was lost with a 200. Such a body is refused instead.
 */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** `blankIsEmpty`: a body of blanks counts as `{}` (any declared type but JSON, as before). */
function asJson(bytes: Uint8Array, blankIsEmpty: boolean): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return new RefusedBody(badRequest("Invalid request body: it is not valid UTF-8 text; send the JSON encoded as UTF-8"));
  }
  return blankIsEmpty && text.trim() === "" ? {} : objectOnly(JSON.parse(text));
}

/**
 * For an API route's parse hook, before a byte is read. Every API body is JSON (spec: requests
 * are JSON), whatever Content-Type says: `curl -d '{…}'` sends a form type, and parsing that as a
 * form turned a JSON body into a confusing "field required". So:
 * - a declared length over the limit is refused (413) at once;
 * - a sized body declared as JSON is read whole at once;
 * - any other body is read (counted, if chunked: 413 past the limit);
 * both are decoded as strict UTF-8 and parsed as JSON here.
 */
export function parseApiBody(request: Request, contentType: string | undefined): Promise<unknown> | RefusedBody | undefined {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > API_BODY_MAX) return tooLarge(`declares ${declared} bytes`);
  if (declared === "0" || !request.body) return undefined;
  if (declared !== null && contentType?.toLowerCase().startsWith("application/json")) {
    return request.bytes().then((bytes) => asJson(bytes, false));
  }
  return readBounded(request.body, API_BODY_MAX).then((bytes) => (bytes === null ? tooLarge("is larger") : asJson(bytes, true)));
}

/**
 * Every API body is a JSON object. Elysia coerces a body for a schema with number fields, and
 * turned `5`, `[]` or `null` into `{}`: such a PATCH answered 200 having changed nothing.
 * Its text must be well-formed: a string (or key) with an unpaired UTF-16 surrogate (`"\ud800"`
 * escaped, or a JavaScript client that cut an emoji in half) is no character, and SQLite's UTF-8
 * binding turned it into garbage or swallowed the text around it, so `{"name":"ab\ud800"}`
 * stored an empty name past the validation.
 */
const objectOnly = (v: unknown) => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return new RefusedBody(badRequest("Invalid request body: must be a JSON object"));
  const fault = firstFault(v);
  return fault === null ? v : new RefusedBody(badRequest(fault));
};

/** An object or array being walked, and which of its members comes next. */
interface Frame {
  items: unknown[];
  keys: string[] | null;
  next: number;
  depth: number;
}

/** "metadata.a[2]": the member each frame is at; a path deep in a long key is named by its start. */
function pathOf(stack: Frame[]): string {
  let out = "";
  for (const [n, f] of stack.entries()) out += f.keys ? (n === 0 ? f.keys[f.next - 1] : `.${f.keys[f.next - 1]}`) : `[${f.next - 1}]`;
  return (out.length > 200 ? `${out.slice(0, 200)}…` : out).toWellFormed();
}

const frame = (v: object, depth: number): Frame =>
  Array.isArray(v) ? { items: v, keys: null, next: 0, depth } : { items: Object.values(v), keys: Object.keys(v), next: 0, depth };

/**
 * What is wrong with a parsed body, in words naming the field, or null:
 * - a string or key holding half of a surrogate pair (see above);
 * - a field nested more than MAX_JSON_DEPTH levels, the rule of metadata, now of every field.
 *   Elysia words a refused body by printing it indented, which took time growing with the
 *   square of its depth: {"chunk":{"a":[[[…]]]}} 20,000 levels deep (40 KB) held the server
 *   for 20 s, and a scope or corpusIds list 5,000 deep overflowed the stack (500). (Elysia no
 *   longer prints a refused body at all: quiet-refusals.ts.)
 * A loop over frames, not recursion, so any depth is walked in memory proportional to it.
 */
function firstFault(root: object): string | null {
  const stack = [frame(root, 0)];
  while (stack.length) {
    const f = stack[stack.length - 1]!;
    if (f.next >= f.items.length) {
      stack.pop();
      continue;
    }
    const i = f.next++;
    const x = f.items[i];
    if ((f.keys && !f.keys[i]!.isWellFormed()) || (typeof x === "string" && !x.isWellFormed())) {
      return `Invalid body field '${pathOf(stack)}': contains an unpaired UTF-16 surrogate, which is no character; send well-formed Unicode`;
    }
    if (x === null || typeof x !== "object") continue;
    if (f.depth + 1 > MAX_JSON_DEPTH) return `Invalid body field '${pathOf(stack.slice(0, 1))}': must be nested at most ${MAX_JSON_DEPTH} levels deep`;
    stack.push(frame(x, f.depth + 1));
  }
  return null;
}
