// A clean stop (SIGTERM: a deploy, systemctl restart) abandons running jobs to the next start
// without spending their attempt. Before, the pool's closing rejected the running conversion as
// a worker crash: each restart spent an attempt, and the third routine restart during a long
// conversion failed the document with "the worker pool is closed".
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { textPdf } from "../convert/fixtures.ts";

test("three SIGTERM restarts during a PDF's conversion spend no attempt; the document ends READY", async () => {
  const pdf = await textPdf(300, 12);
  let k = await startKbqa({ keepData: true });
  const dataDir = k.dataDir;
  try {
    const org = await k.org();
    const jwt = await org.jwt();
    const status = async (id: string) => (await k.request("GET", `/v1/doc/${id}/status`, undefined, { authorization: `Bearer ${jwt}` })).body;
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    // org.api is bound to the first server's address; the restarted ones listen elsewhere.
    const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "long.pdf", contentType: "application/pdf" });
    expect((await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "application/pdf" }, body: pdf as Uint8Array<ArrayBuffer> })).status).toBe(200);
    const id = init.body.document.id as string;
    expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    for (let stop = 0; stop < 3; stop++) {
      await waitFor(async () => {
        const s = await status(id);
        return s.status === "PROCESSING" && s.stage === "converting";
      }, "the conversion to be running", 60_000, 10);
      expect(await k.stop("SIGTERM")).toBe(0);
      const db = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
      const jobs = db.query("SELECT state, attempts FROM jobs WHERE document_id = ?").all(id);
      db.close();
      expect({ stop, jobs }).toEqual({ stop, jobs: [{ state: "queued", attempts: 0 }] });
      k = await startKbqa({ dataDir });
    }
    const done = await waitFor(async () => {
      const s = await status(id);
      return s.status === "READY" || s.status === "FAILED" ? s : null;
    }, "the document to settle", 120_000);
    expect(done.status).toBe("READY");
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 240_000);
