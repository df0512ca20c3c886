import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";

// With a summariser that runs on the server (a GGUF or remote model), parsed documents wait for it
// one after another, minutes for a large upload. Their status said the last stage their worker
// reported (`converting` 0 of 1 for a small file), so they looked stuck in conversion. The stub
// model holds its first summary until the test releases it.
let release: () => void = () => {};
const held = new Promise<void>((r) => (release = r));
const stub = startOpenAIStub({ reply: () => "A short summary.", gate: () => held });
let k: Kbqa;
let org: Org;
let corpusId: string;

beforeAll(async () => {
  k = await startKbqa({ flags: ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"] });
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
});
afterAll(async () => {
  release();
  await k?.stop();
  stub.stop();
});

async function upload(name: string): Promise<string> {
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: name, contentType: "text/plain" });
  await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/plain" }, body: `${name}: the quarterly figures of the northern region.` });
  const commit = await org.api("POST", `/v1/doc/${init.body.document.id}/commit`);
  expect(commit.status).toBe(202);
  return init.body.document.id;
}

const status = async (id: string) => (await org.api("GET", `/v1/doc/${id}/status`)).body;

test("a parsed document waiting for the server's summariser says summarising, then becomes READY", async () => {
  const first = await upload("first.txt");
  await waitFor(() => stub.calls.some((c) => c.path === "/v1/chat/completions"), "the first summary to reach the model");
  // The model is busy with the first document: the second is parsed by a worker, then waits.
  const second = await upload("second.txt");
  const waitingOne = await waitFor(async () => {
    const s = await status(second);
    return s.stage === "summarising" ? s : null;
    // Well inside the remote call's timeout, after which the first summary would be given up and
    // the second document taken on anyway.
  }, "the second document to say it waits for its summary", 6_000);
  expect(waitingOne).toEqual({ id: second, status: "PROCESSING", stage: "summarising", done: 0, total: 1, updatedAt: expect.any(String) });
  expect((await status(first)).status).toBe("PROCESSING");
  release();
  for (const id of [first, second]) await waitFor(async () => (await status(id)).status === "READY", `${id} READY`);
});
