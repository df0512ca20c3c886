import { expect } from "bun:test";
import { waitFor, type Kbqa, type Org } from "../helpers/server.ts";

export async function corpus(org: Org, name = "kb"): Promise<string> {
  const r = await org.api("POST", "/v1/corpus/", { name });
  expect(r.status).toBe(200);
  return r.body.id;
}

export async function session(org: Org, corpusIds: string[]): Promise<string> {
  const r = await org.api("POST", "/v1/session/", { corpusIds });
  expect(r.status).toBe(200);
  return r.body.id;
}

/** The spec's upload flow: init, PUT the bytes to the presigned URL, commit, poll until READY. */
export async function ingest(
  k: Kbqa, org: Org, corpusId: string, filename: string, content: string | Uint8Array,
  contentType = "text/markdown", extra: Record<string, unknown> = {},
): Promise<string> {
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename, contentType, ...extra });
  expect(init.status).toBe(200);
  const url = String(init.body.uploadUrl);
  const put = await fetch(url.startsWith("http") ? url : k.url + url, { method: "PUT", headers: { "content-type": contentType }, body: content });
  expect(put.status).toBe(200);
  const id = init.body.document.id;
  const commit = await org.api("POST", `/v1/doc/${id}/commit`);
  expect(commit.status).toBe(202);
  await waitFor(async () => {
    const s = await org.api("GET", `/v1/doc/${id}`);
    if (s.body?.status === "FAILED") throw new Error(`ingestion failed: ${s.body.statusMsg}`);
    return s.body?.status === "READY";
  }, `document ${filename} READY`, 60_000);
  return id;
}

export const ask = (org: Org, sessionId: string, body: string, extra: Record<string, string> = {}) =>
  org.api("GET", `/v1/post/q?${new URLSearchParams({ sessionId, body, ...extra })}`);

/** One chunk per page: page-level tests need chunks that do not merge across pages. */
export const PER_PAGE = { chunk: { multipage_sections: false, combine_text_under_n_chars: 0 } };

