import { describe, expect, test } from "bun:test";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { newId } from "../../src/store/ids.ts";
import { textPdf, utf8 } from "../convert/fixtures.ts";
import { chunkRows, docState, openTestDb, seedDoc, settled, vectorCount } from "./seed.ts";

const bigText = () => utf8(("word ".repeat(20) + "\n\n").repeat(400_000)); // 40 MB, ~11 s and ~700 MiB to parse

describe("limits stop a document, not the server", () => {
  test("wall-clock limit: FAILED with the limit in the reason, next document still ingests", async () => {
    await using k = await startKbqa({ flags: ["--workers", "1", "--ingest-timeout-ms", "1000"] });
    const db = openTestDb(k.dataDir);
    const org = newId(), corpus = newId();
    const slow = await seedDoc(db, k.dataDir, { orgId: org, corpusId: corpus, bytes: bigText(), contentType: "text/plain" });
    const ok = await seedDoc(db, k.dataDir, { orgId: org, corpusId: corpus, bytes: utf8("small and fine"), contentType: "text/plain" });
    await waitFor(() => settled(db, [slow, ok]), "both settled", 60_000);
    expect(docState(db, slow)).toMatchObject({ status: "FAILED", status_msg: "ingestion exceeded the 1 s limit: raise --ingest-timeout-ms (now 1000) or split the document" });
    expect(docState(db, ok).status).toBe("READY");
    db.close();
  }, 90_000);

  test("memory limit: FAILED with the limit in the reason", async () => {
    await using k = await startKbqa({ flags: ["--workers", "1", "--ingest-memory-bytes", String(200 * 2 ** 20)] });
    const db = openTestDb(k.dataDir);
    const id = await seedDoc(db, k.dataDir, { orgId: newId(), corpusId: newId(), bytes: bigText(), contentType: "text/plain" });
    await waitFor(() => settled(db, [id]), "settled", 60_000);
    expect(docState(db, id)).toMatchObject({ status: "FAILED", status_msg: `ingestion exceeded the 200 MiB memory limit: raise --ingest-memory-bytes (now ${200 * 2 ** 20}) or split the document` });
    db.close();
  }, 90_000);
});

test("SIGKILL during ingestion, restart: every document READY or FAILED, chunks == vectors, no duplicates", async () => {
  const k1 = await startKbqa({ flags: ["--workers", "2"], keepData: true });
  const dataDir = k1.dataDir;
  let db = openTestDb(dataDir);
  const org = newId(), corpus = newId();
  const ids: string[] = [];
  const pdf = await textPdf(60, 20);
  for (let i = 0; i < 6; i++) ids.push(await seedDoc(db, dataDir, { orgId: org, corpusId: corpus, bytes: pdf, contentType: "application/pdf", chunk: { combine_text_under_n_chars: 0 } }));
  // Kill once ingestion is visibly under way (a job running past parsing, or the first READY).
  await waitFor(() => db.query("SELECT 1 FROM documents WHERE stage IN ('summarising', 'embedding', 'indexing') OR status = 'READY'").get(), "ingestion under way", 60_000, 5);
  await k1.stop("SIGKILL");
  db.close();
  const running = openTestDb(dataDir);
  const interrupted = running.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE state IN ('running', 'queued')").get()!.n;
  running.close();
  expect(interrupted).toBeGreaterThan(0);

  await using k2 = await startKbqa({ dataDir, flags: ["--workers", "2"] });
  db = openTestDb(dataDir);
  await waitFor(() => settled(db, ids), "all settled after restart", 110_000, 100);
  for (const id of ids) {
    expect(docState(db, id).status).toBe("READY");
    const rows = chunkRows(db, id);
    expect(rows.length).toBe(61);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(rows.length); // every page's text differs
    expect(await vectorCount(dataDir, org, id)).toBe(rows.length);
  }
  db.close();
  await k2.stop();
  (await import("node:fs")).rmSync(dataDir, { recursive: true, force: true });
}, 180_000);

test("fairness: one organization's backlog does not hold back another's single document", async () => {
  await using k = await startKbqa({ flags: ["--workers", "1"] });
  const db = openTestDb(k.dataDir);
  const orgA = newId(), orgB = newId();
  const pdf = await textPdf(20, 10);
  const backlog: string[] = [];
  for (let i = 0; i < 12; i++) backlog.push(await seedDoc(db, k.dataDir, { orgId: orgA, corpusId: newId(), bytes: pdf, contentType: "application/pdf" }));
  await waitFor(() => db.query("SELECT 1 FROM jobs WHERE state = 'running'").get(), "A's first job running", 30_000, 5);
  const single = await seedDoc(db, k.dataDir, { orgId: orgB, corpusId: newId(), bytes: utf8("org B's only document"), contentType: "text/plain" });
  await waitFor(() => docState(db, single).status === "READY", "B's document READY", 60_000, 20);
  const readyA = backlog.filter((id) => docState(db, id).status === "READY").length;
  // B waited at most for the A document already running (and one more claimed in the same instant).
  expect(readyA).toBeLessThanOrEqual(2);
  expect(backlog.length - readyA).toBeGreaterThanOrEqual(10);
  db.close();
}, 120_000);
