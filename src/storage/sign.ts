import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Presigned storage URLs: `/storage/<key>?X-Kbqa-Expires=…&X-Kbqa-Content-Type=…[&X-Kbqa-Nonce=…]&X-Kbqa-Signature=…`.
 * The HMAC-SHA256 covers the HTTP method, the object key, the expiry (epoch seconds), the
 * bound content type and the nonce, so changing any of them (or using the URL with another
 * method) breaks the signature. The method is not in the URL: the verifier uses the request's.
 */
export const STORAGE_PREFIX = "/storage/";
export const P = {
  expires: "X-Kbqa-Expires",
  contentType: "X-Kbqa-Content-Type",
  nonce: "X-Kbqa-Nonce",
  generation: "X-Kbqa-Generation",
  signature: "X-Kbqa-Signature",
} as const;

export interface Grant {
  method: "GET" | "PUT";
  key: string;
  /** Epoch seconds. */
  expires: number;
  /** PUT: the Content-Type header the upload must carry. GET: the type the object is served as. */
  contentType: string;
  /** Single-use PUT grants carry a nonce recorded in upload_grants. */
  nonce?: string;
  /**
   * GET grants name the document generation they were issued for: the storage route serves them
   * only while the document is live and still of that generation (a replaced original keeps its
   * key, so without it an old URL would serve the new content, and a deleted one its old bytes).
   */
  generation?: number;
}

/**
 * Every field in a fixed slot of a JSON array, absent ones as null: no value can pass for a field
 * boundary. (Fields joined by newlines, the generation appended only when present, let a GET URL
 * move its generation into the nonce, "\ngN", keep its signature and skip the generation check.)
 */
const stringToSign = (g: Grant) =>
  JSON.stringify(["KBQA-HMAC-SHA256/2", g.method, g.key, g.expires, g.contentType, g.nonce ?? null, g.generation ?? null]);

export function signature(secret: Buffer, g: Grant): string {
  return createHmac("sha256", secret).update(stringToSign(g)).digest("hex");
}

/** Path and query of the presigned URL (the caller prepends the public origin). */
export function presignedPath(secret: Buffer, g: Grant): string {
  const q = new URLSearchParams({ [P.expires]: String(g.expires), [P.contentType]: g.contentType });
  if (g.nonce) q.set(P.nonce, g.nonce);
  if (g.generation !== undefined) q.set(P.generation, String(g.generation));
  q.set(P.signature, signature(secret, g));
  return `${STORAGE_PREFIX}${g.key}?${q}`;
}

export type Verdict =
  | { ok: true; grant: Grant }
  | { ok: false; status: 403; code: "AccessDenied" | "SignatureDoesNotMatch"; message: string };

/**
 * Checks a request against its query string. Nothing about the key is trusted before this
 * passes: the route resolves a file path only afterwards.
 */
export function verify(secret: Buffer, method: string, key: string, q: URLSearchParams, nowMs: number): Verdict {
  const sig = q.get(P.signature);
  const exp = q.get(P.expires);
  const ct = q.get(P.contentType);
  if (!sig || !exp || ct === null) {
    return { ok: false, status: 403, code: "AccessDenied", message: "Query-string authentication requires the X-Kbqa-Expires, X-Kbqa-Content-Type and X-Kbqa-Signature parameters" };
  }
  if (method !== "GET" && method !== "PUT") return { ok: false, status: 403, code: "SignatureDoesNotMatch", message: `Method ${method} is not signable` };
  if (!/^\d{1,12}$/.test(exp)) return { ok: false, status: 403, code: "AccessDenied", message: "X-Kbqa-Expires must be epoch seconds" };
  const gen = q.get(P.generation);
  if (gen !== null && !/^\d{1,15}$/.test(gen)) return { ok: false, status: 403, code: "AccessDenied", message: "X-Kbqa-Generation must be a non-negative integer" };
  const grant: Grant = { method, key, expires: Number(exp), contentType: ct, nonce: q.get(P.nonce) ?? undefined, generation: gen === null ? undefined : Number(gen) };
  const want = Buffer.from(signature(secret, grant), "hex");
  const got = /^[0-9a-f]{64}$/i.test(sig) ? Buffer.from(sig, "hex") : Buffer.alloc(0);
  if (got.length !== want.length || !timingSafeEqual(got, want)) {
    return { ok: false, status: 403, code: "SignatureDoesNotMatch", message: "The request signature does not match the method, key, expiry, content type, nonce and generation of this URL" };
  }
  // What the service issues, checked once the signature holds (a URL used with the other method
  // fails above, as a signature mismatch): a GET names its document generation, a PUT carries
  // its single-use nonce.
  if (method === "GET" && grant.generation === undefined) return { ok: false, status: 403, code: "AccessDenied", message: "A download URL requires the X-Kbqa-Generation parameter" };
  if (method === "PUT" && !grant.nonce) return { ok: false, status: 403, code: "AccessDenied", message: "An upload URL requires the X-Kbqa-Nonce parameter" };
  // Expiry is checked after the signature so an attacker cannot learn anything from a forged expiry.
  if (nowMs >= grant.expires * 1000) return { ok: false, status: 403, code: "AccessDenied", message: `Request has expired (at ${new Date(grant.expires * 1000).toISOString()})` };
  return { ok: true, grant };
}
