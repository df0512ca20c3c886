// The user of GET /v1/usage/user/{userId} is named in the path, percent-encoded UTF-8. A byte that
// is not UTF-8 (%E9, "é" in Latin-1) was decoded to U+FFFD, and the answer was a 200 with the
// report of the user "\uFFFD", another user than the one the client named.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  // One session each for the users "\uFFFD" and "josé", opened with their own JWTs.
  for (const sub of ["\uFFFD", "josé"]) {
    const r = await org.api("POST", "/v1/session/", { corpusIds: [corpusId] }, { authorization: `Bearer ${await org.jwt({}, { sub })}` });
    expect(r.status).toBe(200);
  }
});
afterAll(() => k?.stop());

const sessionsOf = async (path: string) => {
  const r = await org.api("GET", path);
  return r.status === 200 ? r.body.sessions.total : { status: r.status, message: r.body.message };
};

test("a path user id that is not percent-encoded UTF-8 → 400 naming userId, not another user's report", async () => {
  for (const [seg, shown] of [["%E9", "%E9"], ["%FF", "%FF"], ["jos%E9", "jos%E9"], ["%C3", "%C3"], ["50%", "50%"], ["%E9/", "%E9"]]) {
    expect(await sessionsOf(`/v1/usage/user/${seg}?timeframe=Day`)).toEqual({
      status: 400,
      message: `Invalid path parameter 'userId': not valid percent-encoded UTF-8 (got "${shown}")`,
    });
  }
});

test("well-encoded user ids still find their user, U+FFFD itself included", async () => {
  expect(await sessionsOf("/v1/usage/user/%EF%BF%BD?timeframe=Day")).toBe(1);
  expect(await sessionsOf("/v1/usage/user/jos%C3%A9?timeframe=Day")).toBe(1);
  expect(await sessionsOf("/v1/usage/user/jos%C3%A9/?timeframe=Day")).toBe(1);
  expect(await sessionsOf("/v1/usage/user/user-1")).toBe(0);
  expect(await sessionsOf("/v1/usage/user/nobody%2Felse")).toBe(0);
});
