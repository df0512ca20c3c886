import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, upload } from "./helpers.ts";

// Bytes that trip the commit-time inspection must end as a FAILED document with a reason (415),
// never a 500 that leaves the document stuck; a FAILED document does not hold its bytes as
// "already in the corpus".
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org("hostile");
  corpusId = await corpus(org);
});
afterAll(() => k.stop());

/** 103 bytes: one central-directory entry whose zip64 extra field claims 65,535 bytes but holds 4. */
function zip64ExtraOverrun(): Uint8Array {
  const b = new Uint8Array(103);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0x04034b50, true); // local header signature
  v.setUint32(30, 0x06054b50, true); // end of central directory, pointing at the entry below
  v.setUint16(38, 1, true);
  v.setUint16(40, 1, true);
  v.setUint32(42, 51, true);
  v.setUint32(46, 52, true);
  const p = 52;
  v.setUint32(p, 0x02014b50, true);
  v.setUint32(p + 20, 0xffffffff, true); // sizes and offset deferred to the zip64 field
  v.setUint32(p + 24, 0xffffffff, true);
  v.setUint16(p + 28, 1, true);
  v.setUint16(p + 30, 4, true);
  v.setUint32(p + 42, 0xffffffff, true);
  b[p + 46] = 0x61;
  v.setUint16(p + 47, 0x0001, true);
  v.setUint16(p + 49, 0xffff, true);
  return b;
}

test("a crafted Office zip is refused at commit with 415 and a reason; the document can get new content", async () => {
  const i = await initOk(org, { corpusId, filename: "evil.docx", contentType: DOCX });
  expect((await put(i.uploadUrl, zip64ExtraOverrun(), DOCX)).status).toBe(200);
  const c = await org.api("POST", `/v1/doc/${i.document.id}/commit`);
  expect([c.status, c.body.message]).toEqual([415, expect.stringContaining("corrupt")]);
  const s = await org.api("GET", `/v1/doc/${i.document.id}/status`);
  expect([s.body.status, typeof s.body.statusMsg]).toEqual(["FAILED", "string"]);
  expect((await org.api("PUT", `/v1/doc/${i.document.id}/init`)).status).toBe(200);
});

test("the same bytes as a FAILED document are not a duplicate; as a live one they are", async () => {
  const text = `the council meets on ${crypto.randomUUID()}\n`;
  // A chunk setting the chunker refuses: ingestion fails after the commit accepted the bytes.
  const bad = await upload(org, corpusId, text, { filename: "a.txt", chunk: { max_characters: "many" } });
  expect(bad.commit.status).toBe(202);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await org.api("GET", `/v1/doc/${bad.init.document.id}/status`);
    if (s.body.status === "FAILED") break;
    if (Date.now() > deadline) throw new Error(`still ${s.body.status}`);
    await Bun.sleep(20);
  }
  const again = await upload(org, corpusId, text, { filename: "b.txt" });
  expect(again.commit.status).toBe(202);
  const third = await upload(org, corpusId, text, { filename: "c.txt" });
  expect([third.commit.status, third.commit.body.existingDocumentId]).toEqual([409, again.init.document.id]);
});
