import { expect, test } from "bun:test";
import { convert } from "../../src/ingest/convert/index.ts";
import { briefMessage } from "../../src/ingest/convert/errors.ts";
import { docx } from "./fixtures.ts";

// Library errors became statusMsg verbatim, positions and dumps on further lines included
// ("…only after doctype\n@#[line:undefined,col:undefined]").

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

test("briefMessage keeps the first line, shortened", () => {
  expect(briefMessage(new Error("bad thing\n@#[line:1]\n  at x"))).toBe("bad thing");
  expect(briefMessage(new TypeError(""))).toBe("TypeError");
  expect(briefMessage("plain string")).toBe("plain string");
  expect(briefMessage(new Error("lance error: Invalid input, bad schema, /usr/local/cargo/registry/src/index/lance-0.1/src/x.rs:188:9"))).toBe("lance error: Invalid input, bad schema");
  const long = briefMessage(new Error("y".repeat(1000)));
  expect(long.length).toBe(200);
  expect(long.endsWith("…")).toBe(true);
});

test("a DOCX with truncated XML fails with one line", async () => {
  const bytes = await docx({ "word/document.xml": `<?xml version="1.0"?><w:document ${W}><w:body><w:p><w:r><w:t>cut` });
  const err = await convert(bytes, "application/vnd.openxmlformats-officedocument.wordprocessingml.document").catch((e) => e);
  expect(err.message).toStartWith("could not read DOCX: ");
  expect(err.message).not.toContain("\n");
  expect(err.message.length).toBeLessThanOrEqual(240);
});
