// A refusal names the field at fault as the client wrote it, also where the rule is checked past
// the schema: the bad entry of a list by its index (`scope[1]`, `reset[1]`, `corpusIds[2]`, the
// index as sent, duplicates included), and the field whose id names nothing (`corpusId`,
// `agentId`) — "Corpus not found" alone left a client with several ids guessing which one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
let k: Kbqa;
let a: Org;
let corpusId: string;
let sessionId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  sessionId = (await a.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
});
afterAll(() => k?.stop());

const refusal = async (method: string, path: string, body?: unknown) => {
  const r = await a.api(method, path, body);
  return { status: r.status, message: r.body.message as string };
};

test("a bad entry of a list checked by the service is named by its index", async () => {
  expect(await refusal("POST", "/v1/auth/access-token", { scope: ["corpus:read", "corpus:fly"] })).toEqual({
    status: 400, message: `Invalid body field 'scope[1]': "corpus:fly" is not DOMAIN:ACTION`,
  });
  const agent = (await a.api("POST", "/v1/agent/", { name: "indexed" })).body.id;
  const r = await refusal("PATCH", `/v1/agent/${agent}`, { reset: ["description", "topK"] });
  expect({ status: r.status, start: r.message.split(" (allowed")[0] }).toEqual({ status: 400, start: "Invalid body field 'reset[1]': 'topK' cannot be reset" });
});

test("an id that names nothing is refused naming its field", async () => {
  expect(await refusal("POST", "/v1/doc/init", { corpusId: UNKNOWN, filename: "a.md", contentType: "text/markdown" })).toEqual({
    status: 404, message: "Corpus not found (field 'corpusId')",
  });
  expect(await refusal("POST", "/v1/session/", { corpusIds: [corpusId, corpusId, UNKNOWN] })).toEqual({
    status: 404, message: `Corpus ${UNKNOWN} not found (field 'corpusIds[2]')`,
  });
  expect(await refusal("GET", `/v1/post/q?sessionId=${sessionId}&body=hi&agentId=${UNKNOWN}`)).toEqual({ status: 404, message: "Agent not found (field 'agentId')" });
  expect(await refusal("POST", "/v1/post/", { sessionId, body: "hi", agentId: UNKNOWN })).toEqual({ status: 404, message: "Agent not found (field 'agentId')" });
  // Still no post written (spec: the agent is resolved before the question is stored).
  expect((await a.api("GET", `/v1/post/?sessionId=${sessionId}`)).body.total).toBe(0);
});
