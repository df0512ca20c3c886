// The server side of preview-tile-write-fails-mid-batch.test.ts: tile writes of several PDFs fail
// while their batches still render, and the server logs each rendering as failed and keeps
// answering. Before 8d20bb6 the first such failure was an unhandled rejection and Bun ended the
// server (exit code 1 in this test; SIGABRT in the 35-minute soak where a deletion dropped a tile
// directory under the renderer). That deletion race is a window of microseconds, so here each
// document's tile directory path is taken by a plain file before the commit: the real store then
// fails every tile write of that document, from the first.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { previewDirKey } from "../../src/store/blob-keys.ts";
import { textPdf } from "../convert/fixtures.ts";

test("tile writes failing mid-batch in several PDFs are logged and the server keeps answering", async () => {
  await using k = await startKbqa();
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id as string;
  const ids: string[] = [];
  for (let n = 0; n < 3; n++) {
    const pdf = await textPdf(20, 3 + n); // distinct bytes: a corpus refuses duplicate content
    const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: `doc${n}.pdf`, contentType: "application/pdf" });
    expect(init.status).toBe(200);
    const id: string = init.body.document.id;
    const url = String(init.body.uploadUrl);
    const put = await fetch(url.startsWith("http") ? url : k.url + url, { method: "PUT", headers: { "content-type": "application/pdf" }, body: pdf as BodyInit });
    expect(put.status).toBe(200);
    // A document's first upload is its generation 0.
    const tiles = join(k.dataDir, "blobs", previewDirKey(org.orgId, id, 0));
    mkdirSync(dirname(tiles), { recursive: true });
    writeFileSync(tiles, "not a directory");
    expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    ids.push(id);
  }
  const alive = () => {
    if (k.proc.exitCode !== null || k.proc.signalCode) throw new Error(`the server exited (${k.proc.exitCode ?? k.proc.signalCode}): ${k.stderr().slice(-2000)}`);
  };
  const failed = (id: string) => k.stderr().split("\n").some((l) => l.includes('"preview rendering failed"') && l.includes(id));
  await waitFor(() => (alive(), ids.every(failed)), "every document's rendering to be logged as failed", 90_000);
  expect(k.stderr()).toMatch(/"preview rendering failed".*EEXIST/);
  expect((await k.request("GET", "/pub/ping")).status).toBe(200);
  alive();
  // The failed renderings leave the documents READY and deletable.
  for (const id of ids) {
    expect((await org.api("GET", `/v1/doc/${id}/status`)).body.status).toBe("READY");
    expect((await org.api("DELETE", `/v1/doc/${id}`)).status).toBe(200);
  }
  expect((await k.request("GET", "/pub/ping")).status).toBe(200);
}, 120_000);
