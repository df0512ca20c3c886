// An imported old session's `legacy` column is spread into its view for the four pre-Versioning
// fields (model, system, temperature, thinking). It was spread whole and last, so an imported row
// carrying other keys of the old format (its own createdAt in another form, an id, corpusIds)
// replaced the session's real values: a wrong answer, and one the response schema refuses
// (uuid and date-time since 20b25a1/f06916c), so the session could not be read or listed at all.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("only the four legacy fields come from the legacy column; id, corpora and times stay the session's", async () => {
  const c = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const id = crypto.randomUUID();
  const db = new Database(join(k.dataDir, "kbqa.sqlite"));
  db.exec("PRAGMA busy_timeout = 10000");
  const legacy = { model: "m1", system: "s", temperature: 0.5, thinking: "LOW", id: "sess-42", createdAt: "Mon, 01 May 2023 10:00:00 GMT", updatedAt: null, corpusIds: ["kb-1"], userId: 7 };
  db.query("INSERT INTO sessions (id, org_id, user_id, metadata, legacy, created_at, updated_at) VALUES (?, ?, 'old', '{}', ?, 1000, 2000)").run(id, org.orgId, JSON.stringify(legacy));
  db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, 0)").run(id, org.orgId, c);
  db.close();
  const one = await org.api("GET", `/v1/session/${id}`);
  const page = await org.api("GET", "/v1/session/");
  const expected = {
    id, orgId: org.orgId, userId: "old", corpusIds: [c], metadata: {},
    createdAt: "1970-01-01T00:00:01.000Z", updatedAt: "1970-01-01T00:00:02.000Z",
    model: "m1", system: "s", temperature: 0.5, thinking: "LOW",
  };
  expect([one.status, one.body]).toEqual([200, expected]);
  expect([page.status, page.body.items]).toEqual([200, [expected]]);
});
