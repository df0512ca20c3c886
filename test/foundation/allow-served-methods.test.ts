import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// A 405's Allow named every route whose path matched by shape: `/v1/post/q` also matched
// `DELETE /v1/post/:postId`, so DELETE was advertised where it is refused ("q" is no post id).
// Allow must list what the path serves, and nothing a client would try only to be refused.
let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
});
afterAll(() => k?.stop());

const allowOf = async (method: string, path: string) => {
  const r = await fetch(`${k.url}${path}`, { method, headers: { authorization: `Bearer ${await a.jwt()}` } });
  return { path, status: r.status, allow: r.headers.get("allow") };
};

test("a literal path beside a parameterised one: Allow names only the literal route's methods", async () => {
  const cases: [string, string, string][] = [
    ["OPTIONS", "/v1/post/q", "GET"],
    ["PUT", "/v1/session/q", "GET"],
    ["OPTIONS", "/v1/chunk/q", "GET"],
    ["OPTIONS", "/v1/doc/accept", "GET"],
    ["PUT", "/v1/doc/init", "POST"],
  ];
  for (const [method, path, allow] of cases) expect(await allowOf(method, path)).toEqual({ path, status: 405, allow });
});

test("the method left out is indeed refused there: DELETE /v1/post/q is a bad post id", async () => {
  const r = await a.api("DELETE", "/v1/post/q");
  expect([r.status, /postId/.test(String(r.body.message))]).toEqual([400, true]);
});

test("a valid id, in either case, still gets every method of the parameterised routes", async () => {
  const id = crypto.randomUUID();
  for (const path of [`/v1/post/${id}`, `/v1/session/${id.toUpperCase()}`, `/v1/doc/${id}`]) {
    const expected = path.startsWith("/v1/post/") ? "DELETE, GET" : "DELETE, GET, PATCH";
    expect(await allowOf("PUT", path)).toEqual({ path, status: 405, allow: expected });
  }
});

test("a path that no route serves with a valid parameter is 404, not a 405 listing refusals", async () => {
  const r = await a.api("OPTIONS", "/v1/session/search");
  expect([r.status, r.body.message]).toEqual([404, "No route for OPTIONS /v1/session/search"]);
});
