import { closeAfterAnswer } from "../http/error-handler.ts";
import { Elysia } from "elysia";
import { existsSync } from "node:fs";
import type { AppContext } from "../context.ts";
import { FsBlobStore } from "../store/fs-blob.ts";
import { skippedMarkerOfTile } from "../store/blob-keys.ts";
import { claimGrant, completeGrant, keyDocument, releaseGrant } from "./grants.ts";
import { storageError } from "./s3-error.ts";
import { storageFailure, STORAGE_FAILURE_MESSAGE } from "../store/storage-errors.ts";
import { STORAGE_PREFIX, verify } from "./sign.ts";
import { TooLarge, writeUpload } from "./write.ts";
import { judgeBytes } from "../documents/inspect.ts";
import { briefMessage } from "../ingest/convert/errors.ts";

/**
 * Headers of a served object. Uploaded files are the organizations' content, served from the
 * API's own origin: an original is a download (attachment, under its filename), nothing is
 * sniffed into another type, and a sandboxing policy keeps an HTML or SVG upload from running
 * script there (next to /docs) when opened directly.
 */
function servedHeaders(contentType: string, filename: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": contentType,
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'",
  };
  if (filename !== null) {
    const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
    headers["content-disposition"] = `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
  }
  return headers;
}

/**
 * The presigned object-storage endpoint, outside /v1/ and without API credentials: the
 * signature in the query string is the only authority. The key is the raw path after
 * /storage/ (never decoded: the signer only emits [A-Za-z0-9._/-]); it is verified before any
 * file path is derived from it, and the blob store refuses keys escaping its root anyway.
 * The handlers read `request` only, so Elysia neither buffers nor parses the body.
 */
export function storageRoutes(ctx: AppContext, secret: Buffer) {
  if (!(ctx.blobs instanceof FsBlobStore)) throw new Error("the storage route needs the filesystem blob store");
  const blobs = ctx.blobs;
  const max = ctx.config.maxUploadBytes;

  const keyOf = (request: Request) => {
    const u = new URL(request.url);
    return { key: u.pathname.slice(STORAGE_PREFIX.length), query: u.searchParams };
  };

  /** A write the server could not complete: 507 (MinIO's answer) when the disk is full, else 500. */
  const failed = (request: Request, key: string, e: unknown) => {
    const volume = storageFailure(e);
    ctx.log.error("upload failed", { key, error: String((volume ? (e as Error)?.message : (e as Error)?.stack) ?? e) });
    if (volume === "full") return storageError(request, 507, "StorageFull", STORAGE_FAILURE_MESSAGE.full, key);
    if (volume === "readonly") return storageError(request, 503, "ServiceUnavailable", STORAGE_FAILURE_MESSAGE.readonly, key);
    return storageError(request, 500, "InternalError", "The upload could not be stored", key);
  };

  // Storage answers as S3 does (s3-error.ts), so the /v1 error documentation added later does not apply.
  const refusal = (description: string) => ({
    description,
    content: {
      "application/xml": { schema: { type: "string" as const, description: "<Error><Code/><Message/><Key/><RequestId/></Error>" } },
      "application/json": { schema: { $ref: "#/components/schemas/Error" } },
    },
  });
  const STORAGE_REFUSALS = {
    "4XX": refusal("Refused, S3-style: the URL expired, was used, was altered or names nothing (403, 404, 412), too large (413); the error object instead when Accept asks for application/json"),
    "5XX": refusal("Not stored: the data disk is full (507) or read-only (503)"),
  };

  return new Elysia({ detail: { tags: ["Storage"] } })
    // A refusal sent before the body was read says Connection: close; this makes it true (http/error-handler.ts).
    .onAfterHandle(({ request, server, response }) => {
      if (response instanceof Response && response.status >= 400) closeAfterAnswer(server, request);
    })
    .put(
      "/storage/*",
      async ({ request }) => {
        const t0 = performance.now();
        const { key, query } = keyOf(request);
        const v = verify(secret, "PUT", key, query, ctx.clock.now());
        if (!v.ok) return storageError(request, v.status, v.code, v.message, key);
        const nonce = v.grant.nonce;
        if (!nonce) return storageError(request, 403, "AccessDenied", "This URL does not grant uploads", key);
        const sent = request.headers.get("content-type") ?? "";
        if (sent !== v.grant.contentType) {
          return storageError(request, 403, "SignatureDoesNotMatch", `Content-Type "${sent}" differs from the type bound to this URL ("${v.grant.contentType}")`, key);
        }
        const declared = Number(request.headers.get("content-length") ?? "0");
        if (declared > max) return storageError(request, 413, "EntityTooLarge", `The upload declares ${declared} bytes; the maximum is ${max}`, key);
        try {
          blobs.filePath(key);
        } catch {
          return storageError(request, 400, "InvalidArgument", "Invalid object key", key);
        }
        let claimedGrant: boolean;
        try {
          claimedGrant = claimGrant(ctx.db, nonce, key, ctx.clock.now());
        } catch (e) {
          return failed(request, key, e); // nothing claimed, nothing written: the URL stays usable
        }
        if (!claimedGrant) {
          return storageError(request, 412, "PreconditionFailed", "This upload URL was already used, is in use, or no longer matches the document", key);
        }
        const claimed = performance.now();
        try {
          // A body held whole in memory is judged there, while the disk works, so commit reads nothing back.
          let verdict: { reason: string | null } | undefined;
          const inspect = (body: Uint8Array) => {
            verdict = { reason: judgeBytes(body, v.grant.contentType, (e) => ctx.log.error("inspecting an upload failed", { key, error: briefMessage(e) })) };
          };
          const { size, sha256, timing } = await writeUpload(blobs, key, request, max, { inspect });
          const c0 = performance.now();
          const hex = sha256.toString("hex");
          completeGrant(ctx.db, nonce, size, hex, ctx.clock.now(), verdict);
          const end = performance.now();
          // Server-Timing lets a client (scripts/bench-upload.ts) split network time from storage time.
          const all = { claim: claimed - t0, ...timing, complete: end - c0, total: end - t0 };
          const phases = Object.entries(all).map(([k, ms]) => `${k};dur=${ms.toFixed(2)}`);
          const headers = { etag: `"${hex}"`, "x-amz-checksum-sha256": sha256.toString("base64"), "server-timing": phases.join(", ") };
          return new Response(null, { status: 200, headers });
        } catch (e) {
          // Nothing was stored, or it was but could not be recorded (its next PUT overwrites it):
          // the URL may be retried until it expires.
          releaseGrant(ctx.db, nonce);
          if (e instanceof TooLarge) return storageError(request, 413, "EntityTooLarge", e.message, key);
          if (request.signal.aborted) return storageError(request, 400, "InvalidArgument", "The upload was interrupted", key);
          return failed(request, key, e);
        }
      },
      // parse "none": the handler streams the body itself; no parse hook of a sibling route group may read it first.
      {
        parse: "none",
        detail: {
          summary: "Upload to a presigned URL (single use; Content-Type must equal the bound type)",
          security: [],
          responses: { "200": { description: "Stored; ETag is the SHA-256 of the bytes, in hex" }, ...STORAGE_REFUSALS },
        },
      },
    )
    .get(
      "/storage/*",
      ({ request }) => {
        const { key, query } = keyOf(request);
        const v = verify(secret, "GET", key, query, ctx.clock.now());
        if (!v.ok) return storageError(request, v.status, v.code, v.message, key);
        let path: string;
        try {
          path = blobs.filePath(key);
        } catch {
          return storageError(request, 400, "InvalidArgument", "Invalid object key", key);
        }
        // A URL stays valid only while what it was issued for does: the document live and of the
        // same generation (a replaced original keeps its key).
        const doc = keyDocument(ctx.db, key);
        // verify() admits no GET without a generation.
        if (!doc || v.grant.generation !== doc.generation) {
          return storageError(request, 404, "NoSuchKey", "The object no longer exists: its document was deleted or given new content since this URL was issued", key);
        }
        if (!existsSync(path)) {
          const marker = skippedMarkerOfTile(key);
          if (marker && existsSync(blobs.filePath(marker))) {
            return storageError(request, 404, "NoSuchKey", "The object does not exist: this page of the PDF could not be rendered, so its preview will not be generated", key);
          }
          return storageError(request, 404, "NoSuchKey", "The object does not exist (a preview not rendered yet, or nothing uploaded)", key);
        }
        return new Response(Bun.file(path), { headers: servedHeaders(v.grant.contentType, key.endsWith("/original") ? doc.filename : null) });
      },
      {
        detail: {
          summary: "Download through a presigned URL",
          security: [],
          responses: {
            "200": { description: "The object, with the type it was uploaded as", content: { "application/octet-stream": { schema: { type: "string" as const, format: "binary" } } } },
            ...STORAGE_REFUSALS,
          },
        },
      },
    )
    // Presigned URLs are for GET and PUT only; S3 answers other methods 405 MethodNotAllowed,
    // with the Allow header a 405 must carry (RFC 9110).
    .all("/storage/*", ({ request }) => {
      const refused = storageError(request, 405, "MethodNotAllowed", `${request.method} is not allowed on a presigned URL (GET or PUT)`, keyOf(request).key);
      refused.headers.set("allow", "GET, HEAD, PUT");
      return refused;
    }, {
      parse: "none",
      detail: { hide: true },
    });
}
