// The durable hand-off's last promise: no document stays PROCESSING forever. A document the
// server keeps dying under (here once, with --ingest-max-attempts 1) ends FAILED at the next
// start with the reason in statusMsg, while a document committed beside it that no worker had
// begun is picked up again and ends READY. Everything goes through HTTP; SQLite is only read.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { corpus, initOk, put, sql } from "../documents/helpers.ts";

const FLAGS = ["--workers", "1", "--ingest-max-attempts", "1"];

test("a document whose ingestion the server died under ends FAILED after its attempts; a waiting one is picked up", async () => {
  const first = await startKbqa({ keepData: true, flags: FLAGS });
  const dataDir = first.dataDir;
  let k = first;
  try {
    const org = await first.org();
    const c = await corpus(org);
    // Seconds of conversion, chunking and embedding: the kill lands while the worker holds it.
    const long = Array.from({ length: 1500 }, (_, i) => `## Part ${i}\n\n` + `Part ${i} explains valves, pumps and the inspection routine. `.repeat(60)).join("\n\n");
    const committed: string[] = [];
    for (const [filename, body] of [["long.md", long], ["short.md", "# Short\n\nA short note on the pump inspection routine."]] as const) {
      const i = await initOk(org, { corpusId: c, filename, contentType: "text/markdown" });
      expect((await put(i.uploadUrl, body, "text/markdown")).status).toBe(200);
      expect((await org.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
      committed.push(i.document.id);
    }
    const [longId, shortId] = committed as [string, string];
    const job = (id: string) => sql<{ state: string; attempts: number }>(first, "SELECT state, attempts FROM jobs WHERE document_id = ?", id)[0];
    await waitFor(() => {
      const j = job(longId);
      return j?.state === "running" && j.attempts === 1;
    }, "a worker to begin the long document", 30_000, 10);
    await first.stop("SIGKILL");
    expect(sql<{ status: string }>(first, "SELECT status FROM documents WHERE id = ?", longId)).toEqual([{ status: "PROCESSING" }]);
    expect(job(shortId)?.attempts).toBe(0);

    k = await startKbqa({ dataDir, keepData: true, flags: FLAGS });
    const auth = { authorization: `Bearer ${await org.jwt()}` };
    const status = async (id: string) => (await k.request("GET", `/v1/doc/${id}/status`, undefined, auth)).body;
    const settled = (id: string) =>
      waitFor(async () => {
        const s = await status(id);
        return s.status === "READY" || s.status === "FAILED" ? s : null;
      }, `${id} to settle after the restart`, 60_000, 50);
    const failed = await settled(longId);
    expect({ status: failed.status, statusMsg: failed.statusMsg }).toEqual({ status: "FAILED", statusMsg: expect.stringMatching(/^ingestion failed: /) });
    expect((await settled(shortId)).status).toBe("READY");
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 180_000);
