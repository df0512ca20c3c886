import { afterEach, expect, spyOn, test } from "bun:test";
import { openPdf } from "../../src/ingest/convert/pdf.ts";

// A damaged PDF's statusMsg says so in words and promises the library's own message in the server
// log; the log line held "Error\n at BaseExceptionClosure (…pdfjs.mjs…)" instead, the stack pdf.js
// exceptions inherit from their shared prototype, with no exception name and no message.

const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  for (const s of spies.splice(0)) s.mockRestore();
});

function capturedLog(): Record<string, string>[] {
  const lines: Record<string, string>[] = [];
  const spy = spyOn(console, "error").mockImplementation((line: unknown) => {
    lines.push(JSON.parse(String(line)));
  });
  spies.push(spy);
  return lines;
}

test("a PDF pdf.js cannot open is logged with the exception's name and message", async () => {
  const lines = capturedLog();
  const damaged = new TextEncoder().encode("%PDF-1.7\n" + "garbage ".repeat(500));
  const err = (await openPdf(damaged).catch((e: unknown) => e)) as Error;
  expect(err.message).toBe("could not read PDF: the file is damaged (its structure cannot be read)");
  const line = lines.find((l) => l.msg === "pdf.js could not open a PDF");
  expect(line).toBeDefined();
  expect(line!.error).toStartWith("InvalidPDFException: Invalid PDF structure.");
  expect(line!.error).not.toContain("BaseExceptionClosure");
});
