// HEAD on the question endpoints is refused 405 (it would store both posts), but that 405 came
// without the Allow header every other 405 of the API carries (RFC 9110 requires it on a 405) and
// without `allowed` in the error object, so a client could not tell which method to use.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("HEAD on GET /v1/post/q and the widget's q: 405 naming the methods served, in Allow and the error object", async () => {
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const sessionId = (await org.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
  const token = (await org.api("POST", "/v1/auth/access-token", { scope: ["post:read", "post:create"] })).body.token;
  const cases: [string, Record<string, string>, string][] = [
    [`/v1/post/q?sessionId=${sessionId}&body=Cars`, { authorization: `Bearer ${await org.jwt()}` }, "GET"],
    [`/v1/webhook/widget/q?sessionId=${sessionId}&body=Cars`, { "x-access-token": token }, "GET, POST"],
  ];
  for (const [path, headers, allow] of cases) {
    const head = await fetch(`${k.url}${path}`, { method: "HEAD", headers });
    expect({ path, status: head.status, allow: head.headers.get("allow") }).toEqual({ path, status: 405, allow });
  }
  const put = await fetch(`${k.url}/v1/post/q`, { method: "PUT", headers: { authorization: `Bearer ${await org.jwt()}` } });
  expect([put.status, put.headers.get("allow"), (await put.json()).allowed]).toEqual([405, "GET", ["GET"]]);
  expect((await org.api("GET", `/v1/post/?sessionId=${sessionId}`)).body.total).toBe(0);
});
