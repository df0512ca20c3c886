import { expect, test } from "bun:test";
import { ConversionError, convert } from "../../src/ingest/convert/index.ts";
import { DOCX, XLSX } from "../../src/ingest/formats.ts";
import { docx } from "./fixtures.ts";
import { xlsx } from "./xlsx-fixture.ts";

// Parts were decoded as UTF-8 whatever they declared: a document.xml in ISO-8859-1 went READY as
// "caf� na�ve", and invalid UTF-8 went READY with U+FFFD, where a text file with the same bytes is refused.

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const body = (text: string, encoding?: string) =>
  `<?xml version="1.0"${encoding ? ` encoding="${encoding}"` : ""}?><w:document ${W}><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`;
/** One byte per character: the string's own code units, as a Latin-1 file holds them. */
const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const reason = (p: Promise<unknown>) => p.then(() => "converted", (e) => (e instanceof ConversionError ? e.message : `not a ConversionError: ${e}`));

test("a part declaring ISO-8859-1 or windows-1252 is decoded as it says", async () => {
  const iso = await convert(await docx({ "word/document.xml": latin1(body("café naïve", "ISO-8859-1")) }), DOCX);
  expect(iso.markdown).toBe("café naïve\n");
  // 0x80 is the euro sign in windows-1252
  const cp = await convert(await docx({ "word/document.xml": latin1(body("5 \x80 net", "windows-1252")) }), DOCX);
  expect(cp.markdown).toBe("5 € net\n");
});

test("a part in UTF-16 with a byte-order mark is read", async () => {
  const s = "\ufeff" + body("grüße", "UTF-16");
  const bytes = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) new DataView(bytes.buffer).setUint16(i * 2, s.charCodeAt(i), true);
  expect((await convert(await docx({ "word/document.xml": bytes }), DOCX)).markdown).toBe("grüße\n");
});

test("invalid UTF-8 in a part fails the document naming the part", async () => {
  const bad = latin1(body("café")); // é as the single byte 0xE9: not UTF-8
  expect(await reason(convert(await docx({ "word/document.xml": bad }), DOCX))).toBe("archive part word/document.xml is not valid UTF-8 text");
  const declared = latin1(body("café", "UTF-8"));
  expect(await reason(convert(await docx({ "word/document.xml": declared }), DOCX))).toBe("archive part word/document.xml is not valid UTF-8 text");
});

test("an encoding that cannot be decoded is refused, not guessed", async () => {
  const doc = await docx({ "word/document.xml": latin1(body("za\xbf\xf3\xb3\xe6", "ISO-8859-2")) });
  expect(await reason(convert(doc, DOCX)))
    .toBe('archive part word/document.xml declares the encoding "ISO-8859-2", which cannot be decoded here; save it as UTF-8');
  const lying = await docx({ "word/document.xml": body("plain", "UTF-16") });
  expect(await reason(convert(lying, DOCX))).toBe("archive part word/document.xml declares UTF-16 but is not UTF-16 text");
});

test("XLSX parts follow the same rule", async () => {
  const sst = `<?xml version="1.0" encoding="ISO-8859-1"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>Région</t></si><si><t>Amount</t></si><si><t>Nord</t></si></sst>`;
  const ok = await convert(await xlsx({ "xl/sharedStrings.xml": latin1(sst) as unknown as string }), XLSX);
  expect(ok.markdown).toContain("| Région | Amount | Ok |");
  const bad = await xlsx({ "xl/sharedStrings.xml": latin1(sst.replace(' encoding="ISO-8859-1"', "")) as unknown as string });
  expect(await reason(convert(bad, XLSX))).toBe("archive part xl/sharedStrings.xml is not valid UTF-8 text");
});
