// Reading a large PDF's pages is most of its conversion (10 s for 2,000 pages in the audit), and
// its status said `converting` 0 of 1 all along: no way to tell progress from a hang.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { pdfToMarkdown } from "../../src/ingest/convert/pdf.ts";
import { textPdf } from "../convert/fixtures.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus } from "../documents/helpers.ts";

test("pdfToMarkdown reports pages read: increasing, at most every 250 ms, and once all are read", async () => {
  const reports: [number, number, number][] = [];
  const t0 = Date.now();
  const r = await pdfToMarkdown(await textPdf(400), (done, total) => reports.push([done, total, Date.now()]));
  const elapsed = Date.now() - t0;
  expect(r.nbPages).toBe(400);
  expect(reports.at(-1)!.slice(0, 2)).toEqual([400, 400]);
  expect(reports.every(([d, t], i) => t === 400 && d > (reports[i - 1]?.[0] ?? 0))).toBe(true);
  expect(reports.length).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 250));
});

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("a large PDF's status counts its pages while it converts", async () => {
  const corpusId = await corpus(org);
  const bytes = await textPdf(1200);
  const i = await org.api("POST", "/v1/doc/init", { corpusId, filename: "big.pdf", contentType: "application/pdf" });
  expect((await fetch(i.body.uploadUrl, { method: "PUT", body: bytes as BodyInit, headers: { "content-type": "application/pdf" } })).status).toBe(200);
  const id = i.body.document.id;
  expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
  const seen: { stage?: string; done?: number; total?: number }[] = [];
  await waitFor(async () => {
    const s = (await org.api("GET", `/v1/doc/${id}/status`)).body;
    if (s.stage === "converting" && s.total !== 1) seen.push({ stage: s.stage, done: s.done, total: s.total });
    return s.status === "READY";
  }, "READY", 120_000, 20);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.every((s) => s.total === 1200 && s.done! > 0 && s.done! <= 1200)).toBe(true);
});
