// The widget family has no scope name of its own (spec, Authentication rule 9), but a scope must
// still cover the request (rule 5): each widget path needs the scope of the operation it stands
// for. Before, any access token, a usage dashboard's or an upload client's, could read every
// conversation of its organization and ask the knowledge base anything through the widget.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, ingest } from "../posts/helpers.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
let sessionId: string;
let answerId: string;
const W = "/v1/webhook/widget";
const WIDGET_SET = ["corpus:read", "session:read", "session:create", "post:read", "post:create"];
const token = async (scope: string[]) => (await a.api("POST", "/v1/auth/access-token", { scope, userId: "visitor" })).body.token as string;
const as = (t: string, method: string, path: string, body?: unknown) => k.request(method, path, body, { "x-access-token": t });

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org("widget-scopes");
  corpusId = await corpus(a, "kb");
  await ingest(k, a, corpusId, "kb.md", "# Leave\n\nEmployees get 25 days of paid leave.\n");
  const full = await token(WIDGET_SET);
  sessionId = (await as(full, "POST", `${W}/init`, { corpusIds: [corpusId] })).body.id;
  answerId = (await as(full, "POST", `${W}/q`, { sessionId, body: "How many days of leave?" })).body.answer.id;
}, 120_000);
afterAll(() => k?.stop());

/** Status of each widget call for a token of `scope`. */
async function statuses(scope: string[]) {
  const t = await token(scope);
  return {
    init: (await as(t, "POST", `${W}/init`, { corpusIds: [corpusId] })).status,
    ask: (await as(t, "POST", `${W}/q`, { sessionId, body: "How many days?" })).status,
    askGet: (await as(t, "GET", `${W}/q?${new URLSearchParams({ sessionId, body: "How many days?" })}`)).status,
    list: (await as(t, "GET", `${W}/?sessionId=${sessionId}`)).status,
    attachment: (await as(t, "GET", `${W}/attachment/${answerId}`)).status,
    legacyInSession: (await as(t, "POST", "/webhook/v1/widget/en", { sessionId, body: "How many days?" })).status,
    legacyNewSession: (await as(t, "POST", "/webhook/v1/widget/en", { corpusIds: [corpusId], body: "How many days?" })).status,
  };
}

test("tokens of other domains are refused on every widget path", async () => {
  const none = { init: 403, ask: 403, askGet: 403, list: 403, attachment: 403, legacyInSession: 403, legacyNewSession: 403 };
  for (const scope of [["usage:read"], ["doc:create", "doc:read"], ["config:read"], ["corpus:read", "session:read"]]) {
    expect({ scope, ...(await statuses(scope)) }).toEqual({ scope, ...none });
  }
});

test("each widget path needs the scope of the operation it stands for", async () => {
  expect(await statuses(WIDGET_SET)).toEqual({ init: 200, ask: 200, askGet: 200, list: 200, attachment: 200, legacyInSession: 200, legacyNewSession: 200 });
  expect(await statuses(["session:create"])).toEqual({ init: 200, ask: 403, askGet: 403, list: 403, attachment: 403, legacyInSession: 403, legacyNewSession: 403 });
  expect(await statuses(["post:read"])).toEqual({ init: 403, ask: 200, askGet: 200, list: 200, attachment: 200, legacyInSession: 200, legacyNewSession: 403 });
  expect(await statuses(["post:create"])).toEqual({ init: 403, ask: 200, askGet: 200, list: 403, attachment: 403, legacyInSession: 200, legacyNewSession: 403 });
  expect(await statuses(["post:create", "session:create"])).toMatchObject({ legacyNewSession: 200 });
});

test("the first-generation path refused for an unknown agent opens no session", async () => {
  const t = await token(WIDGET_SET);
  const count = async () => (await a.api("GET", "/v1/session/q?pageSize=100")).body.total as number;
  const before = await count();
  const r = await as(t, "POST", "/webhook/v1/widget/en", { corpusIds: [corpusId], body: "How many days?", agentId: crypto.randomUUID() });
  expect(r.status).toBe(404);
  const empty = await as(t, "POST", "/webhook/v1/widget/en", { corpusIds: [corpusId], body: "   " });
  expect(empty.status).toBe(400);
  expect(await count()).toBe(before);
});
