// A rendering that never reached a worker did not bring the server down: previews left to render
// wait behind parsing in the pool at every start, and a server killed while they waited must not
// count that against them. Before, every start counted one for each pending PDF as it was queued,
// so three kills during a parsing backlog gave up previews that had never begun ("previews given
// up"), and their tiles answered 404 for good. Found by test/crash/.
import { expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { previewDirKey, previewKey } from "../../src/store/blob-keys.ts";
import { newId } from "../../src/store/ids.ts";
import { textPdf, utf8 } from "../convert/fixtures.ts";
import { docState, openTestDb, seedDoc } from "./seed.ts";

const FLAGS = ["--workers", "1"];
// Seconds of conversion in the one worker, so the previews wait in the pool behind it.
const long = () => utf8(Array.from({ length: 1500 }, (_, i) => `## Part ${i}\n\n` + `Part ${i} explains valves, pumps and inspections. `.repeat(60)).join("\n\n"));

test("previews that waited behind parsing at three killed starts are rendered at the fourth", async () => {
  let k = await startKbqa({ keepData: true, flags: FLAGS });
  const dataDir = k.dataDir;
  try {
    const org = await k.org();
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    const pdf = await ingestDocument(k, org, corpusId, "doc.pdf", await textPdf(1), "application/pdf");
    const tile = () => join(dataDir, "blobs", previewKey(org.orgId, pdf, 0, 0, "SMALL"));
    await waitFor(() => existsSync(tile()), "the first rendering's tile", 60_000);
    await k.stop();
    // Its previews are left to render again, and a long parse is queued ahead of them.
    rmSync(join(dataDir, "blobs", previewDirKey(org.orgId, pdf, 0)), { recursive: true, force: true });
    const db = openTestDb(dataDir);
    db.query("INSERT OR REPLACE INTO preview_jobs (document_id, org_id, generation, next_page, starts, created_at) VALUES (?, ?, 0, 0, 0, 0)").run(pdf, org.orgId);
    const slow = await seedDoc(db, dataDir, { orgId: org.orgId, corpusId: newId(), bytes: long(), contentType: "text/markdown" });
    for (let start = 1; start <= 3; start++) {
      k = await startKbqa({ dataDir, flags: FLAGS });
      await waitFor(() => docState(db, slow).stage === "converting" || null, "the long parse under way", 30_000, 5);
      await k.stop("SIGKILL");
      expect(existsSync(tile())).toBe(false); // the rendering never ran
    }
    k = await startKbqa({ dataDir, flags: FLAGS });
    db.close();
    await waitFor(() => existsSync(tile()) || k.stderr().includes("previews given up"), "the tile after the fourth start", 90_000);
    expect(k.stderr()).not.toContain("previews given up");
    expect(existsSync(tile())).toBe(true);
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 180_000);
