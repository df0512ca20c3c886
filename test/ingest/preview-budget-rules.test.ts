// The per-document preview budget, page by page: a page is admitted whole or not at all, the first
// refusal says which limit refused it, and the reserve is checked against the space the page needs.
import { expect, test } from "bun:test";
import { byteBudget, PreviewBudget } from "../../src/ingest/previews.ts";

const MiB = 2 ** 20;

test("pages are planned up to maxPages, never beyond the document", () => {
  const b = new PreviewBudget({ maxPages: 500, maxBytes: MiB, reserveBytes: 0 }, () => null);
  expect([b.planned(3), b.planned(500), b.planned(5000)]).toEqual([3, 500, 500]);
  expect(new PreviewBudget({ maxPages: 0, maxBytes: MiB, reserveBytes: 0 }, () => null).planned(10)).toBe(0);
});

test("bytes: a page that would pass maxBytes is refused and not counted; one that fits exactly is admitted", () => {
  const b = new PreviewBudget({ maxPages: 10, maxBytes: 10 * MiB, reserveBytes: 0 }, () => null);
  expect([b.admit(4 * MiB), b.admit(4 * MiB), b.admit(3 * MiB)]).toEqual([null, null, "bytes"]);
  expect({ pages: b.pages, bytes: b.bytes }).toEqual({ pages: 2, bytes: 8 * MiB });
  expect(b.admit(2 * MiB)).toBeNull();
  expect(b.bytes).toBe(10 * MiB);
});

test("pages: the page after maxPages is refused even when bytes remain", () => {
  const b = new PreviewBudget({ maxPages: 2, maxBytes: 100 * MiB, reserveBytes: 0 }, () => null);
  expect([b.admit(1), b.admit(1), b.admit(1)]).toEqual([null, null, "pages"]);
});

test("disk: refused when writing the page would leave less than the reserve free", () => {
  let free = 5 * MiB;
  const b = new PreviewBudget({ maxPages: 10, maxBytes: 100 * MiB, reserveBytes: 4 * MiB }, () => free);
  expect(b.admit(MiB)).toBeNull(); // leaves exactly the reserve
  free -= MiB;
  expect(b.admit(1)).toBe("disk");
  free = 50 * MiB; // space freed meanwhile: later pages may go again
  expect(b.admit(MiB)).toBeNull();
  expect(b.pages).toBe(2);
});

test("byte budget: the fixed allowance, or the ratio times the original when that is more", () => {
  const limits = { maxBytes: 64 * MiB, bytesRatio: 20 };
  expect(byteBudget(limits, 1000)).toBe(64 * MiB); // a tiny upload gets the allowance, no more
  expect(byteBudget(limits, 12.7e6)).toBe(254e6); // the audit's 12.7 MB PDF: 254 MB, not 4.3 GB
  expect(byteBudget({ ...limits, bytesRatio: 0 }, 12.7e6)).toBe(64 * MiB);
});
