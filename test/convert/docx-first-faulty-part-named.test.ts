import { expect, test } from "bun:test";
import { convert } from "../../src/ingest/convert/index.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import { docx, DOCUMENT_XML } from "./fixtures.ts";

// Before mammoth runs, the DOCX converter reads parts itself to decide whether to cut the body into
// slices. It read document.xml first, so a file with two undecodable parts was refused naming
// document.xml where mammoth, which reads the styles first, named styles.xml. It reads in mammoth's
// order again.

const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

test("with bad bytes in both the styles and the document, the styles are named, as mammoth names them", async () => {
  const badStyles = latin1(`<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">\xff</w:styles>`);
  const badDocument = latin1(DOCUMENT_XML.replace("Annual Report", "Annual \xff Report"));
  const err = await convert(await docx({ "word/styles.xml": badStyles, "word/document.xml": badDocument }), DOCX).catch((e) => e);
  expect(err.message).toBe("archive part word/styles.xml is not valid UTF-8 text");
});
