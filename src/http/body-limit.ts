import { AppError } from "./errors.ts";

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

/** The parsed body of a chunked request that ran past API_BODY_MAX (refused before validation). */
export const TOO_LARGE = Object.freeze({});

export const tooLarge = (what = "is larger") => new AppError("PAYLOAD_TOO_LARGE", `The request body ${what}; the API accepts at most ${API_BODY_MAX} bytes`);

/** The body as text, or null once it passes `max` bytes (reading stops there). */
async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<string | null> {
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const chunk of body) {
    n += chunk.byteLength;
    if (n > max) return null;
    parts.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}

/**
 * For an API route's parse hook, before a byte is read: a declared length over the limit is
 * TOO_LARGE at once; a chunked body (no Content-Length) is counted as it is read and parsed
 * here; anything else is left to Elysia's parser (undefined). Elysia reports anything thrown
 * while parsing as a malformed body, so an oversized one is returned as TOO_LARGE, for the
 * route to refuse with 413 before validation.
 */
export function parseChunked(request: Request, contentType: string | undefined): Promise<unknown> | typeof TOO_LARGE | undefined {
  const declared = request.headers.get("content-length");
  if (declared !== null) return Number(declared) > API_BODY_MAX ? TOO_LARGE : undefined;
  if (!request.body) return undefined;
  return readBounded(request.body, API_BODY_MAX).then((text) => {
    if (text === null) return TOO_LARGE;
    return contentType?.startsWith("application/json") ? JSON.parse(text) : text;
  });
}
