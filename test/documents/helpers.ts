/**
 * Shared steps of the document and storage tests: a corpus, an initialised document, a PUT
 * to its presigned URL, a commit. Everything goes over real HTTP to a real server.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { ErrorBody } from "../../src/http/errors.ts";
import { waitFor, type ApiResult, type Kbqa, type Org } from "../helpers/server.ts";

export interface Init {
  document: any;
  uploadUrl: string;
  expiresAt: string;
}

export async function corpus(o: Org, name = "docs"): Promise<string> {
  const r = await o.api("POST", "/v1/corpus/", { name });
  if (r.status !== 200) throw new Error(`corpus create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
}

/** The error body of every non-2xx answer (SPEC error format), as the server defines it. */
export type { ErrorBody };

/** An Init on 200, an ErrorBody otherwise; the tests read whichever the status says. */
export type InitAnswer = Init & Partial<ErrorBody>;

export async function init(o: Org, body: Record<string, unknown>): Promise<ApiResult<InitAnswer>> {
  return o.api("POST", "/v1/doc/init", { filename: "a.txt", contentType: "text/plain", ...body });
}

export async function initOk(o: Org, body: Record<string, unknown>): Promise<Init> {
  const r = await init(o, body);
  if (r.status !== 200) throw new Error(`init: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function put(url: string, data: string | Uint8Array, contentType: string | null = "text/plain", extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra };
  if (contentType !== null) headers["content-type"] = contentType;
  const r = await fetch(url, { method: "PUT", body: data as BodyInit, headers });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

/** init + PUT + commit of a text document; returns the commit answer. */
export async function upload(o: Org, corpusId: string, text: string, body: Record<string, unknown> = {}) {
  const i = await initOk(o, { corpusId, ...body });
  const p = await put(i.uploadUrl, text, (body.contentType as string) ?? "text/plain");
  if (p.status !== 200) throw new Error(`put: ${p.status} ${p.text}`);
  const c = await o.api("POST", `/v1/doc/${i.document.id}/commit`);
  return { init: i, commit: c };
}

/**
 * init + PUT + commit of any bytes, then the document once ingestion has settled (READY or
 * FAILED), for the tests of how hostile or odd files end: a refusal at commit (415) leaves the
 * document FAILED at once, so the commit's answer is returned beside the final state.
 */
export async function ingestSettled(o: Org, corpusId: string, filename: string, bytes: Uint8Array, contentType: string, timeoutMs = 60_000) {
  const i = await initOk(o, { corpusId, filename, contentType });
  const p = await put(i.uploadUrl, bytes, contentType);
  if (p.status !== 200) throw new Error(`put: ${p.status} ${p.text}`);
  const commit = await o.api("POST", `/v1/doc/${i.document.id}/commit`);
  const doc = await waitFor(async () => {
    const s = (await o.api("GET", `/v1/doc/${i.document.id}/status`)).body;
    return s.status === "READY" || s.status === "FAILED" ? s : undefined;
  }, `${filename} settled`, timeoutMs);
  return { id: i.document.id as string, commit: commit.status, commitMessage: commit.body?.message as string | undefined, status: doc.status as string, statusMsg: doc.statusMsg as string | undefined };
}

/** The bodies of a document's first chunks, in the chunk listing's order (body=true caps pageSize at 25). */
export async function chunkBodies(o: Org, documentId: string, pageSize = 25): Promise<string[]> {
  const r = await o.api("GET", `/v1/chunk/q?documentId=${documentId}&body=true&pageSize=${pageSize}`);
  if (r.status !== 200) throw new Error(`chunk listing: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.items.map((c: { body: string }) => c.body);
}

/**
 * Direct access to the server's SQLite file. Tests use it only to play the ingestion worker
 * (set READY, a summary, nbPages) while that worker is not part of the run.
 */
export function sql<T = unknown>(k: Kbqa, query: string, ...params: (string | number | null)[]): T[] {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"));
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    return db.query(query).all(...params) as T[];
  } finally {
    db.close();
  }
}

export const errorShape = (status: number) => ({
  timestamp: expectString(),
  status,
  error: expectString(),
  message: expectString(),
  path: expectString(),
});

import { expect } from "bun:test";
function expectString() {
  return expect.any(String);
}
