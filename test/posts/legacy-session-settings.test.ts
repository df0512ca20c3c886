import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";
import { ask, corpus } from "./helpers.ts";

// Spec, Versioning: old sessions keep their model, temperature and thinking. The agent's
// baseModel wins over the session's model; the session's temperature and thinking win over
// the agent's. The stub speaks the OpenAI wire, so the request shows what was applied.
const stub = startOpenAIStub({ reply: () => "Stub answer." });
let k: Kbqa;
let org: Org;
let cid: string;
let db: Database;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"] });
  org = await k.org();
  cid = await corpus(org);
  db = new Database(join(k.dataDir, "kbqa.sqlite"));
  db.exec("PRAGMA busy_timeout = 10000");
});
afterAll(async () => {
  db?.close();
  await k?.stop();
  stub.stop();
});

/** An imported old session: no API path writes these fields any more. */
function oldSession(legacy: Record<string, unknown>): string {
  const id = crypto.randomUUID();
  db.query("INSERT INTO sessions (id, org_id, user_id, metadata, legacy, created_at, updated_at) VALUES (?, ?, 'old', '{}', ?, 1000, 1000)").run(id, org.orgId, JSON.stringify(legacy));
  db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, 0)").run(id, org.orgId, cid);
  return id;
}
const agent = async (body: Record<string, unknown>) => (await org.api("POST", "/v1/agent/", { name: crypto.randomUUID(), ...body })).body.id as string;

/** Asks once; the chat request the stub received (undefined when the remote model was not used) and the model stored on the answer. */
async function answer(sessionId: string, agentId?: string) {
  const before = stub.calls.length;
  const r = await ask(org, sessionId, "what does the zorbanian council decide?", agentId ? { agentId } : {});
  expect(r.status).toBe(200);
  const chat = stub.calls.slice(before).find((c) => c.path === "/v1/chat/completions")?.body;
  const stored = db.query<{ model: string }, [string]>("SELECT model FROM posts WHERE id = ?").get(r.body.answer.id)!.model;
  return { chat, model: stored };
}

test("the session's model answers when the agent names none", async () => {
  const r = await answer(oldSession({ model: "builtin-extractive" }));
  expect(r.chat).toBeUndefined();
  expect(r.model).toBe("builtin-extractive");
});

test("an agent's baseModel wins over the session's model", async () => {
  const r = await answer(oldSession({ model: "builtin-extractive" }), await agent({ baseModel: "remote:stub-chat" }));
  expect(r.chat.model).toBe("stub-chat");
  expect(r.model).toBe("remote:stub-chat");
});

test("the session's temperature and thinking win over the agent's", async () => {
  const s = oldSession({ model: "remote:stub-chat", temperature: 0.9, thinking: "HIGH" });
  const byDefault = await answer(s);
  expect([byDefault.chat.temperature, byDefault.chat.reasoning_effort]).toEqual([0.9, "high"]);
  const own = await answer(s, await agent({ temperature: 0.3, thinkingMode: "LOW" }));
  expect([own.chat.temperature, own.chat.reasoning_effort]).toEqual([0.9, "high"]);
});

test("what the session left unset comes from the agent, then the platform", async () => {
  const id = await agent({ temperature: 0.3, thinkingMode: "HIGH" });
  const onlyTemp = await answer(oldSession({ temperature: 0.9 }), id);
  expect([onlyTemp.chat.temperature, onlyTemp.chat.reasoning_effort]).toEqual([0.9, "high"]);
  const fresh = (await org.api("POST", "/v1/session/", { corpusIds: [cid], model: "builtin-extractive", temperature: 1, thinking: "LOW" })).body.id;
  const onAgent = await answer(fresh, id);
  expect([onAgent.chat.temperature, onAgent.chat.reasoning_effort]).toEqual([0.3, "high"]);
  const platform = await answer(fresh);
  expect([platform.chat.temperature, platform.chat.reasoning_effort, platform.model]).toEqual([0.2, "low", "remote:stub-chat"]);
});

test("a stored value the service cannot run on counts as unset", async () => {
  const r = await answer(oldSession({ model: "retired-model", temperature: "hot", thinking: "MEDIUM" }));
  expect([r.chat.temperature, r.chat.reasoning_effort, r.model]).toEqual([0.2, "low", "remote:stub-chat"]);
});

test("an old session's system text reaches the model after the agent's instruction; a new session's is ignored", async () => {
  const own = "Answer as the archivist of the zorbanian council.";
  const id = await agent({ context: "You help the council's clerks." });
  const r = await answer(oldSession({ system: own }), id);
  const system = r.chat.messages.find((m: { role: string }) => m.role === "system").content as string;
  expect(system.indexOf("You help the council's clerks.")).toBeGreaterThanOrEqual(0);
  expect(system.indexOf(own)).toBeGreaterThan(system.indexOf("You help the council's clerks."));
  const fresh = (await org.api("POST", "/v1/session/", { corpusIds: [cid], system: own })).body.id;
  const ignored = await answer(fresh, id);
  expect(ignored.chat.messages.find((m: { role: string }) => m.role === "system").content).not.toContain(own);
});
