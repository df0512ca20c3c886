// Remote tier: the same scenario with an OpenAI-wire-compatible stub configured by --remote-url.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa } from "../helpers/server.ts";
import { expectScenario } from "./expect-scenario.ts";
import { REMOTE_KEY as KEY, startRemoteStub } from "./remote-stub.ts";
import { runScenario, type ScenarioResult } from "./scenario.ts";

let stub: ReturnType<typeof startRemoteStub>["stub"];
let k: Kbqa;
let r: ScenarioResult;

beforeAll(async () => {
  const remote = startRemoteStub();
  stub = remote.stub;
  k = await startKbqa({ flags: remote.flags, env: remote.env });
  r = await runScenario(k);
});
afterAll(async () => {
  await k?.stop();
  stub?.stop();
});

describe("remote tier (OpenAI-compatible server configured)", () => {
  test("remote models are the defaults", () => {
    expectScenario(r, { embedding: "remote:stub-embed", chat: "remote:stub-chat", tier: "remote" });
    // The width was learnt at start-up (the stub's vectors have 16 components).
    expect(r.models.find((m) => m.id === "remote:stub-embed")!.dims).toBe(16);
  });

  test("the stub served embeddings (documents and question) and chat completions, with the key", () => {
    const paths = new Set(stub.calls.map((c) => c.path));
    expect([...paths].sort()).toEqual(["/v1/chat/completions", "/v1/embeddings"]);
    expect(stub.calls.every((c) => c.auth === `Bearer ${KEY}`)).toBe(true);
    const embedded = stub.calls.filter((c) => c.path === "/v1/embeddings").flatMap((c) => [c.body.input].flat());
    expect(embedded.some((t: string) => t.includes("seventeen gulls"))).toBe(true); // a passage
    expect(embedded.some((t: string) => t.includes("How many gulls"))).toBe(true); // the question
    const chats = stub.calls.filter((c) => c.path === "/v1/chat/completions");
    expect(chats.every((c) => c.body.model === "stub-chat" && c.body.stream === true)).toBe(true);
  });

  test("an endpoint that refuses the embedding probe stops the start with the reason", async () => {
    const err = await startKbqa({
      flags: ["--remote-url", stub.url, "--remote-embedding-model", "stub-embed"],
      env: { KBQA_REMOTE_KEY: "sk-wrong" },
    }).then((started) => started.stop().then(() => undefined), (e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain('Vector width of remote embedding model "remote:stub-embed"');
    expect(err!.message).toContain("401");
  });

  test("the answer text comes from the stub, and its marker becomes the citation of page 2", () => {
    expect(r.answer.body).toMatch(/^Stub model says: seventeen gulls \[\d+\]\.$/);
    expect(r.answer.attachment).toBe(1);
    expect(r.attachments).toEqual([{ docId: r.pdfId, summary: expect.any(String), pages: [2], metadata: expect.any(Object) }]);
  });
});
