import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DOCX, PPTX, XLSX } from "../../src/ingest/formats.ts";
import { docx, utf8 } from "../convert/fixtures.ts";
import { pdfOfObjects } from "../convert/pdf-page-count-fixture.ts";
import { corpus, errorShape, initOk, put } from "../documents/helpers.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";

// Reasons for a refused or failed document, as a client reads them in statusMsg, said in our words:
// - JSON: the parser's own text reached statusMsg ("invalid JSON: JSON Parse error: Unexpected EOF" for an
//   empty file), though the README says parser text never does;
// - an empty PDF or Office file was refused at commit for a missing "%PDF- header" or "zip signature";
// - the zip-bomb refusal counted its limit in bytes ("209715200 bytes"), now in MiB;
// - a PDF whose page tree holds no page says so ("the PDF has no pages"), not "no text layer".

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
  corpusId = await corpus(a, "failures");
}, 60_000);
afterAll(() => k?.stop());

/** init, PUT and commit; the commit's status and body, and the document once it has settled. */
async function send(filename: string, contentType: string, bytes: Uint8Array) {
  const i = await initOk(a, { corpusId, filename, contentType });
  const p = await put(i.uploadUrl, bytes, contentType);
  if (p.status !== 200) throw new Error(`put ${filename}: ${p.status} ${p.text}`);
  const commit = await a.api("POST", `/v1/doc/${i.document.id}/commit`);
  const settled = await waitFor(async () => {
    const s = (await a.api("GET", `/v1/doc/${i.document.id}/status`)).body;
    return s.status === "READY" || s.status === "FAILED" ? s : undefined;
  }, `${filename} settled`, 60_000);
  return { commit: { status: commit.status, body: commit.body }, status: settled.status, statusMsg: settled.statusMsg };
}

/** A PDF whose page tree has no kids and a /Count of 0: a real PDF of no pages. */
function pdfOfNoPages(): Uint8Array {
  return pdfOfObjects(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"]);
}

/** Rewrites the declared uncompressed size of one central-directory entry, the one named `name` (a lying archive). */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let p = 0; p + 46 <= out.length; p++) {
    if (view.getUint32(p, true) !== 0x02014b50) continue;
    const nameLen = view.getUint16(p + 28, true);
    if (new TextDecoder().decode(out.subarray(p + 46, p + 46 + nameLen)) === name) view.setUint32(p + 24, size, true);
  }
  return out;
}

describe("failure reasons in words", () => {
  test("an empty PDF, DOCX, XLSX or PPTX: commit 415 'The uploaded file is empty', FAILED with that reason", async () => {
    for (const [filename, type] of [["empty.pdf", "application/pdf"], ["empty.docx", DOCX], ["empty.xlsx", XLSX], ["empty.pptx", PPTX]] as const) {
      const r = await send(filename, type, new Uint8Array(0));
      expect({ filename, ...r }).toEqual({
        filename,
        commit: { status: 415, body: { ...errorShape(415), message: "The uploaded file is empty" } },
        status: "FAILED",
        statusMsg: "The uploaded file is empty",
      });
    }
  }, 60_000);

  test("JSON: an empty file, whitespace and broken JSON fail in our words, never the parser's", async () => {
    const cases: [string, string, string][] = [
      ["empty.json", "", "the file is empty"],
      ["whitespace-only.json", "  \n\t\n", "not valid JSON: the file holds only whitespace"],
      ["unclosed-object.json", '{"a": [1, 2', "not valid JSON"],
    ];
    for (const [filename, text, reason] of cases) {
      const r = await send(filename, "application/json", utf8(text));
      expect({ filename, commit: r.commit.status, status: r.status, statusMsg: r.statusMsg }).toEqual({ filename, commit: 202, status: "FAILED", statusMsg: reason });
      expect(r.statusMsg).not.toContain("Parse error");
    }
  }, 60_000);

  test("a DOCX declaring gigabytes uncompressed: FAILED naming the limit in MiB", async () => {
    // Only the media part lies, so commit's check of [Content_Types].xml passes and conversion meets the limit.
    const lying = declareSize(await docx({ "word/media/zeros.bin": new Uint8Array(1000) }), "word/media/zeros.bin", 0x7fffffff);
    const r = await send("media-part-declares-2-gib.docx", DOCX, lying);
    expect(r.status).toBe("FAILED");
    expect(r.statusMsg).toContain("more than 200 MiB uncompressed, over the limit; refused before decompression");
    expect(r.statusMsg).not.toContain("209715200");
  }, 60_000);

  test("a PDF of no pages: FAILED 'the PDF has no pages'", async () => {
    const r = await send("no-pages.pdf", "application/pdf", pdfOfNoPages());
    expect({ status: r.status, statusMsg: r.statusMsg }).toEqual({ status: "FAILED", statusMsg: "the PDF has no pages" });
    expect(r.statusMsg).not.toContain("text layer");
  }, 60_000);
});
