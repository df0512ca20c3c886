import { AppError, badRequest } from "./errors.ts";

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
  const found = illFormedAt(v);
  if (found === null) return v;
  // A path deep in a nested value can be hundreds of thousands of characters: its start is named.
  const field = found.length > 200 ? `${found.slice(0, 200)}…` : found;
  return new RefusedBody(
    badRequest(`Invalid body field '${field.toWellFormed()}': contains an unpaired UTF-16 surrogate, which is no character; send well-formed Unicode`),
  );
};

/** A value met while walking a body, with how it was reached (its path is spelled only when needed). */
interface Step {
  v: unknown;
  up: Step | null;
  /** `[2]` for an array item, the key for an object member. */
  seg: string;
  isKey: boolean;
}

const pathOf = (s: Step): string => {
  let out = "";
  for (let at: Step | null = s; at?.up; at = at.up) out = at.isKey ? (at.up.up ? `.${at.seg}` : at.seg) + out : at.seg + out;
  return out;
};

/**
 * Where the first ill-formed string sits ("metadata.a[2]"), or null. Keys count too. A loop,
 * not recursion: JSON nested 50,000 levels deep (valid, and refused later by the field's own
 * depth rule) overflowed the stack here, and the client was told its JSON was malformed.
 */
function illFormedAt(root: unknown): string | null {
  const stack: Step[] = [{ v: root, up: null, seg: "", isKey: false }];
  while (stack.length) {
    const s = stack.pop()!;
    if (s.isKey && !s.seg.isWellFormed()) return pathOf(s);
    const v = s.v;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return pathOf(s);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], up: s, seg: `[${i}]`, isKey: false });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i]![1], up: s, seg: entries[i]![0], isKey: true });
    }
  }
  return null;
}
