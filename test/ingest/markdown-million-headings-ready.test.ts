import { afterAll, beforeAll, expect, test } from "bun:test";
import { corpus, initOk, put } from "../documents/helpers.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";

// Parsing built the array of every element of a document (one object per heading or paragraph)
// before chunking any of them: a 12 MB markdown file of 3 million one-word headings took the worker
// past its 1 GiB memory limit (about 1.1 GiB) and ended FAILED with "raise --ingest-memory-bytes".
// Elements now reach the chunker as they are found; the worker peaks near 650 MiB and it is READY.

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

test("3 million one-word headings (12 MB of markdown) end READY", async () => {
  const bytes = new TextEncoder().encode("# h\n".repeat(3_000_000));
  const i = await initOk(a, { corpusId: await corpus(a, "headings"), filename: "headings.md", contentType: "text/markdown" });
  expect((await put(i.uploadUrl, bytes, "text/markdown")).status).toBe(200);
  expect((await a.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
  const end = await waitFor(async () => {
    const s = (await a.api("GET", `/v1/doc/${i.document.id}/status`)).body;
    return s.status === "READY" || s.status === "FAILED" ? { status: s.status, statusMsg: s.statusMsg } : undefined;
  }, "settled", 90_000);
  expect(end.statusMsg).toBeUndefined();
  expect(end.status).toBe("READY");
}, 120_000);
