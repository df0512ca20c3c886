import { afterAll, beforeAll, expect, test } from "bun:test";
import { corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// Parsing built the array of every element of a document (one object per heading or paragraph)
// before chunking any of them: a 12 MB markdown file of 3 million one-word headings took the worker
// past its 1 GiB memory limit (about 1.1 GiB) and ended FAILED with "raise --ingest-memory-bytes".
// Elements now reach the chunker as they are found; the worker peaks near 650 MiB and it is READY.

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

test("3 million one-word headings (12 MB of markdown) end READY", async () => {
  const bytes = new TextEncoder().encode("# h\n".repeat(3_000_000));
  const end = await ingestSettled(a, await corpus(a, "headings"), "headings.md", bytes, "text/markdown", 90_000);
  expect({ commit: end.commit, status: end.status, statusMsg: end.statusMsg }).toEqual({ commit: 202, status: "READY", statusMsg: undefined });
}, 120_000);
