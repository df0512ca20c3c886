import { presignedPath, type Grant } from "./sign.ts";

/** Issues presigned URLs; the service adds the public origin of the request it answers. */
export interface Presigner {
  /** Single-use upload URL (nonce recorded by the caller in upload_grants). */
  put(key: string, contentType: string, nonce: string, nowMs: number): { path: string; expiresAt: number };
  /** Short-lived download URL serving the object as `contentType` while the document is live and of `generation`. */
  get(key: string, contentType: string, nowMs: number, generation: number): { path: string; expiresAt: number };
}

export function presigner(secret: Buffer, uploadTtlS: number, downloadTtlS: number): Presigner {
  const make = (g: Omit<Grant, "expires">, nowMs: number, ttlS: number) => {
    const expires = Math.ceil(nowMs / 1000) + ttlS;
    return { path: presignedPath(secret, { ...g, expires }), expiresAt: expires * 1000 };
  };
  return {
    put: (key, contentType, nonce, nowMs) => make({ method: "PUT", key, contentType, nonce }, nowMs, uploadTtlS),
    get: (key, contentType, nowMs, generation) => make({ method: "GET", key, contentType, generation }, nowMs, downloadTtlS),
  };
}
