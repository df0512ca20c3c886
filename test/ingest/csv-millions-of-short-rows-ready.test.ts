import { afterAll, beforeAll, expect, test } from "bun:test";
import { chunkBodies, corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// The element parser split the whole markdown into an array of its lines, and a table's rows into
// another, before joining them again: a CSV of 10 million one-character rows (20 MB) made a
// 60 MB table of 10 million lines and took the worker past its 1 GiB memory limit (FAILED with
// "raise --ingest-memory-bytes"). Lines are now read in place and the table is one slice of the
// text: parsing it in-process peaks near 620 MiB instead of 1.15 GiB, and the document is READY.

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

test("a CSV of 10 million one-character rows (20 MB) ends READY", async () => {
  const bytes = new TextEncoder().encode("a\n".repeat(10_000_000));
  const end = await ingestSettled(a, await corpus(a, "rows"), "rows.csv", bytes, "text/csv", 150_000);
  expect({ commit: end.commit, status: end.status, statusMsg: end.statusMsg }).toEqual({ commit: 202, status: "READY", statusMsg: undefined });
  const bodies = await chunkBodies(a, end.id, 5);
  expect(bodies.some((b) => b.startsWith("| a |\n| --- |\n| a |\n"))).toBe(true);
}, 180_000);
