import { expect, test } from "bun:test";
import { startKbqa, waitFor } from "../helpers/server.ts";

// A document over the worker's memory limit ended FAILED with "ingestion exceeded the 1 GiB memory
// limit" and nothing to do about it: the reason now names the setting and its value, and the other way out.

const MIB_64 = 64 * 2 ** 20;

test("a document over the memory limit: FAILED naming the flag to raise, its value, or splitting", async () => {
  await using k = await startKbqa({ flags: ["--workers", "1", "--ingest-memory-bytes", String(MIB_64)] });
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "headings.md", contentType: "text/markdown" });
  expect(init.status).toBe(200);
  // 4 MB of one-line sections: far more than 64 MiB to parse
  const body = Array.from({ length: 100_000 }, (_, i) => `## Part ${i}\n\nline ${i} of the document.`).join("\n\n");
  expect((await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body })).status).toBe(200);
  const id = init.body.document.id;
  expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);

  const done = await waitFor(async () => {
    const s = (await org.api("GET", `/v1/doc/${id}/status`)).body;
    return s.status === "PROCESSING" ? null : s;
  }, "the document to settle", 60_000);
  expect(done.status).toBe("FAILED");
  expect(done.statusMsg).toBe(
    `ingestion exceeded the 64 MiB memory limit: raise --ingest-memory-bytes (now ${MIB_64}) or split the document`,
  );
  expect(k.proc.exitCode).toBeNull();
}, 90_000);
