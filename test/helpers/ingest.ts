/**
 * The spec's upload flow, for tests that need ingested documents: init, PUT the bytes to the
 * presigned URL with the declared Content-Type, commit, poll until READY. It throws plain
 * errors (no `expect`) so scripts outside `bun test` (test/tiers/offline-runner.ts) can use it.
 */
import { waitFor, type Kbqa, type Org } from "./server.ts";

function must(cond: unknown, what: string, got?: unknown): asserts cond {
  if (!cond) throw new Error(`upload: ${what}${got === undefined ? "" : ` (got ${JSON.stringify(got).slice(0, 500)})`}`);
}

export async function ingestDocument(
  k: Kbqa, org: Org, corpusId: string, filename: string, bytes: Uint8Array | string,
  contentType = "text/markdown", extra: Record<string, unknown> = {}, timeoutMs = 120_000,
): Promise<string> {
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename, contentType, ...extra });
  must(init.status === 200, "POST /v1/doc/init → 200", init);
  const url = String(init.body.uploadUrl);
  const put = await fetch(url.startsWith("http") ? url : k.url + url, { method: "PUT", headers: { "content-type": contentType }, body: bytes as BodyInit });
  must(put.status === 200, "PUT uploadUrl → 200", { status: put.status, body: await put.text() });
  const id: string = init.body.document.id;
  const commit = await org.api("POST", `/v1/doc/${id}/commit`);
  must(commit.status === 202, `POST /v1/doc/${id}/commit → 202`, commit);
  await waitFor(async () => {
    const s = await org.api("GET", `/v1/doc/${id}/status`);
    must(s.status === 200, `GET /v1/doc/${id}/status → 200`, s);
    if (s.body?.status === "FAILED") throw new Error(`ingestion of ${filename} failed: ${s.body.statusMsg}`);
    return s.body?.status === "READY";
  }, `${filename} READY`, timeoutMs);
  return id;
}
