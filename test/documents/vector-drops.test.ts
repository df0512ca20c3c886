// Deleting documents drops their vectors from LanceDB even when the server dies right after the
// delete answered, and deleting a corpus drops its documents' vectors too (it never did: retrieval
// filters through SQLite, so answers were right, but the rows stayed for good on disk, in memory
// and in every scan). The drops are written in the delete's transaction and carried out after.
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { vectorCount } from "../ingest/seed.ts";

test("a corpus deleted just before a SIGKILL: its documents' vectors are gone after the restart", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  let k = first;
  try {
    const org = await first.org();
    const doomed = (await org.api("POST", "/v1/corpus/", { name: "doomed" })).body.id;
    const kept = (await org.api("POST", "/v1/corpus/", { name: "kept" })).body.id;
    const text = (n: number) => `# Note ${n}\n\n` + `Sentence ${n} about vectors that must not outlive their document. `.repeat(40);
    const gone = [await ingestDocument(first, org, doomed, "a.md", text(1)), await ingestDocument(first, org, doomed, "b.md", text(2))];
    const stays = await ingestDocument(first, org, kept, "c.md", text(3));
    for (const id of [...gone, stays]) expect(await vectorCount(dataDir, org.orgId, id)).toBeGreaterThan(0);
    expect((await org.api("DELETE", `/v1/corpus/${doomed}`)).status).toBeLessThan(300);
    await first.stop("SIGKILL");
    k = await startKbqa({ dataDir, keepData: true });
    await waitFor(async () => (await vectorCount(dataDir, org.orgId, gone[0]!)) + (await vectorCount(dataDir, org.orgId, gone[1]!)) === 0, "the deleted corpus' vectors to go", 20_000, 200);
    expect(await vectorCount(dataDir, org.orgId, stays)).toBeGreaterThan(0);
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
