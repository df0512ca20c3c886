// A question of blanks only is refused naming where the client put it: it was always called a
// query parameter, also when it came in a JSON body (the deprecated POST and the widget paths).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, session } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
let sessionId: string;
let token: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = await corpus(org);
  sessionId = await session(org, [corpusId]);
  const scope = ["session:read", "session:create", "post:read", "post:create"];
  token = (await org.api("POST", "/v1/auth/access-token", { scope })).body.token;
});
afterAll(async () => {
  await k?.stop();
});

const BLANK = " \t\n ";
const refusal = (r: { status: number; body: any }) => ({ status: r.status, message: r.body?.message, path: r.body?.path });
const rule = "must be 1 to 10000 characters, not only blanks";

test("in a query string it is a query parameter", async () => {
  const r = await org.api("GET", `/v1/post/q?${new URLSearchParams({ sessionId, body: BLANK })}`);
  expect(refusal(r)).toEqual({ status: 400, message: `Invalid query parameter 'body': ${rule}`, path: "/v1/post/q" });
});

test("in a JSON body it is a body field, on every path that takes one", async () => {
  const w = { "x-access-token": token };
  const got = [
    await org.api("POST", "/v1/post/", { sessionId, body: BLANK }),
    await k.request("POST", "/v1/webhook/widget/q", { sessionId, body: BLANK }, w),
    await k.request("POST", "/webhook/v1/widget/en", { sessionId, body: BLANK }, w),
    await k.request("POST", "/webhook/v1/widget/en", { corpusIds: [corpusId], body: BLANK }, w),
  ].map(refusal);
  expect(got).toEqual([
    { status: 400, message: `Invalid body field 'body': ${rule}`, path: "/v1/post/" },
    { status: 400, message: `Invalid body field 'body': ${rule}`, path: "/v1/webhook/widget/q" },
    { status: 400, message: `Invalid body field 'body': ${rule}`, path: "/webhook/v1/widget/en" },
    { status: 400, message: `Invalid body field 'body': ${rule}`, path: "/webhook/v1/widget/en" },
  ]);
  // Nothing was written: no post, and no session opened by the first-generation path.
  expect((await org.api("GET", "/v1/session/")).body.total).toBe(1);
  expect((await org.api("GET", `/v1/post/?sessionId=${sessionId}`)).body.total).toBe(0);
});

test("a question with text around blanks is asked", async () => {
  const r = await org.api("POST", "/v1/post/", { sessionId, body: "  what is here?  " });
  expect(r.status).toBe(200);
  expect(r.body.query.body).toBe("what is here?");
});
