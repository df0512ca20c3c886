import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk } from "./helpers.ts";

// The filename search is case-insensitive: JavaScript lower-cases Σ to ς at the end of a word
// and to σ elsewhere, so "ΠΡΟΣ" (read "προς") did not find "ΠΡΟΣΦΟΡΑ.txt" (stored "προσφορα.txt"),
// nor "οδοσ" the file "ΟΔΟΣ.txt" (stored "οδος.txt").
let k: Kbqa;
let a: Org;
let corpusId: string;
let offer: string;
let street: string;

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org("A");
  corpusId = await corpus(a);
  offer = (await initOk(a, { corpusId, filename: "ΠΡΟΣΦΟΡΑ.txt", tags: ["g"] })).document.id;
  street = (await initOk(a, { corpusId, filename: "ΟΔΟΣ.txt", tags: ["g"] })).document.id;
  await initOk(a, { corpusId, filename: "other.txt", tags: ["g"] });
});
afterAll(() => k.stop());

const found = async (q: string, extra = "") => {
  const r = await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&q=${encodeURIComponent(q)}${extra}`);
  expect(r.status).toBe(200);
  return r.body.items.map((d: { id: string }) => d.id).sort();
};

test("a prefix ending in Σ or ς finds the names that go on, and σ finds a name ending in Σ", async () => {
  for (const extra of ["", "&tags=g"]) {
    for (const q of ["ΠΡΟΣ", "Προσ", "προς", "προσ", "*ΡΟΣ"]) expect([q, extra, await found(q, extra)]).toEqual([q, extra, [offer]]);
    for (const q of ["ΟΔΟΣ", "οδοσ", "οδος", "ΟΔΟΣ.", "οδοσ.txt", "*ΔΟΣ.TXT"]) expect([q, extra, await found(q, extra)]).toEqual([q, extra, [street]]);
  }
});

test("a renamed document is found the same way", async () => {
  expect((await a.api("PATCH", `/v1/doc/${street}`, { filename: "ΟΔΟΣ ΝΕΑ.txt" })).status).toBe(200);
  expect(await found("οδοσ ν")).toEqual([street]);
  expect(await found("ΟΔΟΣ ΝΕΑ.TXT")).toEqual([street]);
});

test("names stored before the upgrade are found too", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  await using cleanup = { [Symbol.asyncDispose]: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const org = await first.org();
  const c = await corpus(org);
  const id = (await initOk(org, { corpusId: c, filename: "ΟΔΟΣ.txt" })).document.id;
  await first.stop();
  // As the previous version stored it: JavaScript's lower case, ς at the end of the word.
  const db = new Database(join(dataDir, "kbqa.sqlite"));
  db.query("UPDATE documents SET filename_lc = 'οδος.txt' WHERE id = ?").run(id);
  db.exec("DELETE FROM _migrations WHERE id = 'documents-011'");
  db.close();
  await using again = await startKbqa({ dataDir });
  const jwt = await org.jwt();
  for (const q of ["ΟΔΟΣ", "οδοσ"]) {
    const r = await again.request("GET", `/v1/doc/q?corpusId=${c}&q=${encodeURIComponent(q)}`, undefined, { authorization: `Bearer ${jwt}` });
    expect([q, r.status, r.body.items?.map((d: { id: string }) => d.id)]).toEqual([q, 200, [id]]);
  }
});
