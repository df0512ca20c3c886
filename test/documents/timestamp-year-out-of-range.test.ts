// parseTime reads a 4-digit year with an offset, so "0000-01-01T00:00:00+01:00" is an instant in
// year -1 and "9999-12-31T23:00:00-05:00" one in year 10000. Stored as such, toISOString writes
// them with a 6-digit signed year ("-000001-12-31T23:00:00.000Z"), which the response schema's
// date-time check (published since 20b25a1) refused: the write itself and every later read of the
// document answered 500. New values out of that range are refused naming the field; a row an
// older version stored that way still reads back.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("a timestamp whose UTC instant leaves years 0000-9999 is refused by name, never a 500", async () => {
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const base = { corpusId, filename: "a.md", contentType: "text/markdown" };
  const early = await org.api("POST", "/v1/doc/init", { ...base, docCreate: "0000-01-01T00:00:00+01:00" });
  const late = await org.api("POST", "/v1/doc/init", { ...base, docUpdate: "9999-12-31T23:00:00-05:00" });
  const ok = await org.api("POST", "/v1/doc/init", { ...base, docCreate: "0000-01-01T00:00:00Z", docUpdate: "9999-12-31T23:59:59.999Z" });
  const patched = await org.api("PATCH", `/v1/doc/${ok.body.document.id}`, { docUpdate: "9999-12-31T23:59:59-00:01" });
  expect({
    early: [early.status, early.body.message],
    late: [late.status, late.body.message],
    ok: [ok.status, ok.body.document?.docCreate, ok.body.document?.docUpdate],
    patched: [patched.status, patched.body.message],
  }).toEqual({
    early: [400, expect.stringContaining("'docCreate'")],
    late: [400, expect.stringContaining("'docUpdate'")],
    ok: [200, "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"],
    patched: [400, expect.stringContaining("'docUpdate'")],
  });
});

test("a document an older version stored with such an instant still reads back", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  await using cleanup = { [Symbol.asyncDispose]: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const o = await first.org();
  const corpusId = (await o.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = (await o.api("POST", "/v1/doc/init", { corpusId, filename: "a.md", contentType: "text/markdown" })).body.document.id;
  await first.stop();
  // What parseTime let through before: "0000-01-01T00:00:00+01:00" and "9999-12-31T23:00:00-05:00".
  const db = new Database(join(dataDir, "kbqa.sqlite"), { strict: true });
  db.query("UPDATE documents SET doc_create = ?, doc_update = ? WHERE id = ?").run(-62167222800000, 253402315200000, id);
  db.close();
  await using k2 = await startKbqa({ dataDir });
  const auth = { authorization: `Bearer ${await o.jwt()}` };
  const one = await k2.request("GET", `/v1/doc/${id}`, undefined, auth);
  const page = await k2.request("GET", `/v1/doc/?corpusId=${corpusId}`, undefined, auth);
  expect([one.status, one.body.docCreate, one.body.docUpdate, page.status, page.body.items?.[0]?.docCreate]).toEqual([
    200, "-000001-12-31T23:00:00.000Z", "+010000-01-01T04:00:00.000Z", 200, "-000001-12-31T23:00:00.000Z",
  ]);
});
