import { expect, test } from "bun:test";
import { IngestFailure } from "../../src/ingest/parsed.ts";
import { asDocumentFailure, CONVERTER_FAILED } from "../../src/ingest/worker.ts";

// Bun throws RangeError("Out of memory") when one string or array would pass its size limits, as
// when a converter joins gigabytes of text expanded from a small file (ragged tables did, before
// their sizes were counted). The uploader read "a fault on our side"; it is the document's size.

test("an allocation the runtime refuses is named as the document's size, not our fault", () => {
  const f = asDocumentFailure(new RangeError("Out of memory"));
  expect(f).toBeInstanceOf(IngestFailure);
  expect(f.message).toBe("could not convert the document: its content expands into more text than one conversion can hold in memory");
});

test("other runtime errors are still ours", () => {
  expect(asDocumentFailure(new RangeError("Maximum call stack size exceeded.")).message).toBe(CONVERTER_FAILED);
  expect(asDocumentFailure(new TypeError("Out of memory? no: undefined is not an object")).message).toBe(CONVERTER_FAILED);
});
