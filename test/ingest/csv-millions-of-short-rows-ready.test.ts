import { afterAll, beforeAll, expect, test } from "bun:test";
import { corpus, initOk, put } from "../documents/helpers.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";

// The element parser split the whole markdown into an array of its lines, and a table's rows into
// another, before joining them again: a CSV of 10 million one-character rows (20 MB) made a
// 60 MB table of 10 million lines and took the worker past its 1 GiB memory limit (FAILED with
// "raise --ingest-memory-bytes"). Lines are now read in place and the table is one slice of the
// text: parsing it in-process peaks near 620 MiB instead of 1.15 GiB, and the document is READY.

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

test("a CSV of 10 million one-character rows (20 MB) ends READY", async () => {
  const bytes = new TextEncoder().encode("a\n".repeat(10_000_000));
  const i = await initOk(a, { corpusId: await corpus(a, "rows"), filename: "rows.csv", contentType: "text/csv" });
  expect((await put(i.uploadUrl, bytes, "text/csv")).status).toBe(200);
  expect((await a.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
  const end = await waitFor(async () => {
    const s = (await a.api("GET", `/v1/doc/${i.document.id}/status`)).body;
    return s.status === "READY" || s.status === "FAILED" ? { status: s.status, statusMsg: s.statusMsg } : undefined;
  }, "settled", 150_000);
  expect(end.statusMsg).toBeUndefined();
  expect(end.status).toBe("READY");
  const chunks = await a.api("GET", `/v1/chunk/q?documentId=${i.document.id}&body=true&pageSize=5`);
  const bodies: string[] = chunks.body.items.map((c: { body: string }) => c.body);
  expect(bodies.some((b) => b.startsWith("| a |\n| --- |\n| a |\n"))).toBe(true);
}, 180_000);
