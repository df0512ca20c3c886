import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk } from "./helpers.ts";

// tagsMatch=ALL made one SQL term per listed tag: past 500 tags SQLite refused the compound
// SELECT, past about 1000 the expression tree, and the search answered 500.
let k: Kbqa;
let a: Org;
let corpusId: string;
let both: string;
let full: string;
const thirtyTwo = Array.from({ length: 32 }, (_, i) => `a${i}`);

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org("A");
  corpusId = await corpus(a);
  both = (await initOk(a, { corpusId, filename: "both.txt", tags: ["1", "2"] })).document.id;
  await initOk(a, { corpusId, filename: "one.txt", tags: ["1"] });
  full = (await initOk(a, { corpusId, filename: "full.txt", tags: thirtyTwo })).document.id;
});
afterAll(() => k.stop());

const tags = (n: number) => Array.from({ length: n }, (_, i) => `&tags=${i + 1}`).join("");
const search = (query: string) => a.api("GET", `/v1/doc/q?corpusId=${corpusId}&tagsMatch=ALL${query}`);

test("tagsMatch=ALL with hundreds of tags answers an empty page, alone or with other filters", async () => {
  for (const extra of ["", "&status=AWAITING_UPLOAD", "&status=AWAITING_UPLOAD&lang=en", "&contentType=text/plain", "&q=b"]) {
    for (const n of [600, 1100]) {
      const r = await search(tags(n) + extra);
      expect([n, extra, r.status, r.body.total, r.body.items]).toEqual([n, extra, 200, 0, []]);
    }
  }
});

test("tagsMatch=ALL still finds the documents holding every listed tag, however the list repeats them", async () => {
  const twice = "&tags=1&tags=2".repeat(400);
  for (const extra of ["", "&status=AWAITING_UPLOAD", "&contentType=text/plain"]) {
    const r = await search(twice + extra);
    expect([extra, r.status, r.body.items.map((d: { id: string }) => d.id)]).toEqual([extra, 200, [both]]);
    expect(r.body.total).toBe(1);
  }
});

test("every tag of a full list is required, whether the list is read as terms or on the document row", async () => {
  const listed = (t: string[]) => t.map((x) => `&tags=${x}`).join("");
  for (const extra of ["", "&status=AWAITING_UPLOAD", "&contentType=text/plain"]) {
    const all = await search(listed(thirtyTwo) + extra);
    expect([extra, all.status, all.body.items.map((d: { id: string }) => d.id)]).toEqual([extra, 200, [full]]);
    const more = await search(listed([...thirtyTwo, "a32"]) + extra);
    expect([extra, more.status, more.body.total]).toEqual([extra, 200, 0]);
  }
});
