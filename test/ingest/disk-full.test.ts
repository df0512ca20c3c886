// The data disk filling up while a document is ingested is not the document's fault: the server
// stays up, the document stays PROCESSING (not FAILED: no attempt is spent) and its status says
// why it waits, ingestion pauses, and it finishes on its own once space is freed.
import { describe, expect, test } from "bun:test";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";
import { startKbqa, waitFor } from "../helpers/server.ts";

if (!CAN_MOUNT) console.warn("disk-full ingestion test: mounting a tmpfs needs root on Linux; not run here");

describe.skipIf(!CAN_MOUNT)("ingestion on a data disk that fills up (a real tmpfs)", () => {
  test("pauses instead of failing the document, keeps the server up, and resumes once space is freed", async () => {
    await using disk = smallDisk(96);
    await using k = await startKbqa({ dataDir: disk.dataDir });
    const org = await k.org();
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "big.md", contentType: "text/markdown" });
    // Large enough (4 MB) that its ingestion is still running when the disk fills.
    const body = Array.from({ length: 600 }, (_, i) => `## Part ${i}\n\n` + `Section ${i} talks about storage, quotas and recovery. `.repeat(120)).join("\n\n");
    expect((await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body })).status).toBe(200);
    const id = init.body.document.id;
    expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    disk.fill();

    await waitFor(() => k.stderr().includes("ingestion paused: the data volume cannot be written"), "the scheduler to pause", 60_000);
    expect(k.proc.exitCode).toBeNull();
    const during = await org.api("GET", `/v1/doc/${id}/status`);
    expect(during.status).toBe(200);
    expect(during.body.status).toBe("PROCESSING");
    expect(during.body.waiting).toBe("ingestion is paused: the server's data disk is full; it resumes on its own once that is fixed");

    disk.free();
    await waitFor(async () => {
      const s = (await org.api("GET", `/v1/doc/${id}/status`)).body;
      if (s.status === "FAILED") throw new Error(`FAILED: ${s.statusMsg}`);
      return s.status === "READY";
    }, "READY once space is freed", 90_000);
    expect((await org.api("GET", `/v1/doc/${id}/status`)).body.waiting).toBeUndefined();
    const chunks = await org.api("GET", `/v1/chunk/q?documentId=${id}&pageSize=1`);
    expect(chunks.status).toBe(200);
    expect(chunks.body.total).toBeGreaterThan(600); // one chunk per section at least, each indexed once
    expect(k.stderr()).not.toContain("unhandled error");
  });
});
