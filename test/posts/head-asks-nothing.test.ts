// GET /v1/post/q writes (the question and the answer): HEAD, which a link checker or a
// prefetching proxy sends without reading a body, ran the whole pipeline and stored both posts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("HEAD on the question endpoints answers 405 and stores nothing; GET still asks", async () => {
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const sessionId = (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
  const jwt = await org.jwt();
  const head = await fetch(`${k.url}/v1/post/q?sessionId=${sessionId}&body=Cars`, { method: "HEAD", headers: { authorization: `Bearer ${jwt}` } });
  expect(head.status).toBe(405);

  const token = (await org.api("POST", "/v1/auth/access-token", { scope: ["post:read", "post:create"] })).body.token;
  const widgetHead = await fetch(`${k.url}/v1/webhook/widget/q?sessionId=${sessionId}&body=Cars`, { method: "HEAD", headers: { "x-access-token": token } });
  expect(widgetHead.status).toBe(405);
  expect((await org.api("GET", `/v1/post/?sessionId=${sessionId}`)).body.total).toBe(0);

  const get = await org.api("GET", `/v1/post/q?sessionId=${sessionId}&body=Cars`);
  expect(get.status).toBe(200);
  expect((await org.api("GET", `/v1/post/?sessionId=${sessionId}`)).body.total).toBe(2);
});
