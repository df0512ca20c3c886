import { afterAll, beforeAll, expect, test } from "bun:test";
import { DOCX } from "../../src/ingest/formats.ts";
import { docx } from "../convert/fixtures.ts";
import { chunkBodies, corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// Text files are refused for a NUL or an invalid byte, but a DOCX may write characters XML does not
// allow as references (&#xD800;, &#0;), and mammoth turned them into a lone surrogate and a NUL.
// Both reached the chunks: the lone surrogate garbled with the character after it (stored as
// U+10020, the space eaten) and the NUL as is. Converted text now has U+FFFD for either.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

test("a DOCX with &#xD800; and &#0; in its text: READY, each stored as U+FFFD", async () => {
  const bytes = await docx({
    "word/document.xml": `<?xml version="1.0"?><w:document ${W}><w:body><w:p><w:r><w:t xml:space="preserve">lone &#xD800; surrogate and &#0; nul</w:t></w:r></w:p></w:body></w:document>`,
  });
  const end = await ingestSettled(a, await corpus(a, "chars"), "chars.docx", bytes, DOCX);
  expect({ commit: end.commit, status: end.status }).toEqual({ commit: 202, status: "READY" });
  const bodies = await chunkBodies(a, end.id);
  expect(bodies).toContain("lone \ufffd surrogate and \ufffd nul");
}, 90_000);
