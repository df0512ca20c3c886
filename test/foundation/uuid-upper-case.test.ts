// UUIDs are case-insensitive and the uuid format accepts upper case, but ids are stored in lower
// case: one's own corpus asked for in upper case (Swift's uuidString) answered 404.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "Handbook" })).body.id;
});
afterAll(() => k?.stop());

test("an id in upper case finds the same resource, in the path, the query and the body", async () => {
  const upper = corpusId.toUpperCase();
  const got = await org.api("GET", `/v1/corpus/${upper}`);
  expect({ status: got.status, id: got.body.id }).toEqual({ status: 200, id: corpusId });

  const listed = await org.api("GET", `/v1/doc/?corpusId=${upper}`);
  expect({ status: listed.status, corpusId: listed.body.corpusId }).toEqual({ status: 200, corpusId });

  const session = await org.api("POST", "/v1/session/", { corpusIds: [upper] });
  expect({ status: session.status, corpusIds: session.body.corpusIds }).toEqual({ status: 200, corpusIds: [corpusId] });
  const byCorpus = await org.api("GET", `/v1/session/q?corpusId=${upper}`);
  expect({ status: byCorpus.status, ids: byCorpus.body.items.map((s: { id: string }) => s.id) }).toEqual({ status: 200, ids: [session.body.id] });

  const init = await org.api("POST", "/v1/doc/init", { corpusId: upper, filename: "a.txt", contentType: "text/plain" });
  expect({ status: init.status, corpusId: init.body.document?.corpusId }).toEqual({ status: 200, corpusId });
});

test("what is not an id keeps its case: a user id, a name that looks like a uuid", async () => {
  const name = crypto.randomUUID().toUpperCase();
  const made = await org.api("POST", "/v1/corpus/", { name });
  expect(made.body.name).toBe(name);
  const sub = "ALICE-" + crypto.randomUUID().toUpperCase();
  const me = await org.api("GET", "/v1/auth/whoami", undefined, { authorization: `Bearer ${await org.jwt({}, { sub })}` });
  expect(me.body.userId).toBe(sub);
});

test("another organization's id in upper case is as unknown as in lower case", async () => {
  const other = await k.org("other");
  const r = await other.api("GET", `/v1/corpus/${corpusId.toUpperCase()}`);
  expect(r.status).toBe(404);
});
