// A stop must not wait for a whole batch of server-side summaries (a GGUF model takes seconds
// each, a batch holds dozens): the server took 14 s to stop in an audit, past a container's
// grace period. Summaries not yet begun are left, attempt unspent, for the next start. The stub
// model holds the first summary until the server is stopping.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";

const workersOf = (parent: number): number =>
  readdirSync("/proc").filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      return Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ")[1]) === parent;
    } catch {
      return false; // exited while being read
    }
  }).length;

test.skipIf(process.platform !== "linux")("a stop leaves the summaries not yet begun to the next start", async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  const stub = startOpenAIStub({ reply: () => "A short summary.", gate: () => held });
  const flags = ["--remote-url", stub.url, "--remote-chat-model", "stub-chat"];
  const k = await startKbqa({ flags, keepData: true });
  try {
    const org = await k.org();
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: `d${i}.txt`, contentType: "text/plain" });
      await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/plain" }, body: `Document ${i} on the figures of region ${i}.` });
      ids.push(init.body.document.id);
    }
    // Committed together so the four are parsed into one batch.
    await Promise.all(ids.map((id) => org.api("POST", `/v1/doc/${id}/commit`)));
    await waitFor(() => stub.calls.some((c) => c.path === "/v1/chat/completions"), "the first summary to reach the model");
    await waitFor(() => workersOf(k.proc.pid) > 0, "the workers to run");

    const exited = k.stop("SIGTERM");
    // The ingestion is closing once its workers are gone; only then may the first summary end.
    await waitFor(() => workersOf(k.proc.pid) === 0, "the workers to stop", 20_000);
    release();
    expect(await exited).toBe(0);
    expect(stub.calls.filter((c) => c.path === "/v1/chat/completions").length).toBe(1);

    // The same organization and key on the restarted server: every document ends READY.
    await using again = await startKbqa({ dataDir: k.dataDir, flags });
    const auth = { authorization: `Bearer ${await org.jwt()}` };
    for (const id of ids) {
      await waitFor(async () => (await again.request("GET", `/v1/doc/${id}/status`, undefined, auth)).body?.status === "READY", `${id} READY`);
    }
  } finally {
    release();
    stub.stop();
    rmSync(k.dataDir, { recursive: true, force: true });
  }
});
