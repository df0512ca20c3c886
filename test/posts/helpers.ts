import { expect } from "bun:test";
import type { Kbqa, Org } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";

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
export const ingest = (
  k: Kbqa, org: Org, corpusId: string, filename: string, content: string | Uint8Array,
  contentType = "text/markdown", extra: Record<string, unknown> = {},
): Promise<string> => ingestDocument(k, org, corpusId, filename, content, contentType, extra, 60_000);

export const ask = (org: Org, sessionId: string, body: string, extra: Record<string, string> = {}) =>
  org.api("GET", `/v1/post/q?${new URLSearchParams({ sessionId, body, ...extra })}`);

/** One chunk per page: page-level tests need chunks that do not merge across pages. */
export const PER_PAGE = { chunk: { multipage_sections: false, combine_text_under_n_chars: 0 } };

