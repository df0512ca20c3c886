import { afterAll, beforeAll, expect, test } from "bun:test";
import { DOCX, XLSX } from "../../src/ingest/formats.ts";
import { corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// Office writes a password-protected .docx/.xlsx/.pptx, and the old .doc/.xls/.ppt formats, as an
// OLE2 compound file, not a zip. Uploaded under an Office type, either was refused as "the file is
// not a zip-based Office document (no zip signature)", which does not tell the user what happened
// or what to do; the refusal now says both.

const REASON = "the file is a password-protected Office document or an old .doc, .xls or .ppt file, which cannot be read: save it without a password as .docx, .xlsx or .pptx";

/** The start of an OLE2 compound file: its signature and a header of zeros. */
function ole2(): Uint8Array {
  const b = new Uint8Array(4096);
  b.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  return b;
}

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

test("an OLE2 file declared as DOCX or XLSX: 415 and FAILED saying it is protected or legacy", async () => {
  const corpusId = await corpus(a, "ole");
  for (const [filename, type] of [["report.docx", DOCX], ["sheet.xlsx", XLSX]] as const) {
    const r = await ingestSettled(a, corpusId, filename, ole2(), type, 30_000);
    expect({ commit: r.commit, statusMsg: r.statusMsg }).toEqual({ commit: 415, statusMsg: `The uploaded bytes are not ${type}: ${REASON}` });
  }
});
