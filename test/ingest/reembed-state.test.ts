import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../src/context.ts";
import { openReembeddingIndex, type ReembedDeps } from "../../src/ingest/reembed.ts";
import { openDb, type Db } from "../../src/store/db.ts";
import { newId, orderedId } from "../../src/store/ids.ts";
import {
  abandonBuild, beginBuild, completeBuild, readIndexState, recordActive, recordProgress,
} from "../../src/store/index-state.ts";
import { listLanceTables, openLanceIndex, tableNameFor } from "../../src/store/lance.ts";
import type { SwitchingIndex } from "../../src/store/switching-index.ts";
import { waitFor } from "../helpers/server.ts";
import { fakeEmbedder, fakeRegistry, insertDoc, type FakeChunk, type FakeEmbedder } from "./reembed-fakes.ts";

const A = { embedderId: "fake-a", tableName: tableNameFor("fake-a") };
const B = { embedderId: "fake-b", tableName: tableNameFor("fake-b") };

describe("index_state transitions", () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kbqa-state-"));
    db = openDb(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("record, build with progress, resume keeps the cursor, switch retires the old table", () => {
    expect(readIndexState(db)).toBeUndefined();
    recordActive(db, A, 1);
    expect(readIndexState(db)).toEqual({ active: A, cursor: "", done: 0, total: 0 });
    expect(beginBuild(db, B, 10, 2)).toEqual({ active: A, building: B, cursor: "", done: 0, total: 10, startedAt: 2 });
    recordProgress(db, "c-4", 4, 10, 3);
    // Same target again (a restart): the progress survives.
    expect(beginBuild(db, B, 99, 4)).toEqual({ active: A, building: B, cursor: "c-4", done: 4, total: 10, startedAt: 2 });
    expect(completeBuild(db, 10, 5)).toEqual({ active: B, cursor: "", done: 10, total: 10, startedAt: 2, finishedAt: 5, retired: A.tableName });
    expect(() => completeBuild(db, 10, 6)).toThrow("no rebuild to complete");
  });

  test("a build for a third model replaces the partial one; reverting abandons it", () => {
    recordActive(db, A, 1);
    beginBuild(db, B, 10, 2);
    recordProgress(db, "c-4", 4, 10, 3);
    const C = { embedderId: "fake-c", tableName: tableNameFor("fake-c") };
    expect(beginBuild(db, C, 7, 4)).toEqual({ active: A, building: C, cursor: "", done: 0, total: 7, startedAt: 4, retired: B.tableName });
    expect(abandonBuild(db, 5)).toEqual({ active: A, cursor: "", done: 0, total: 0, startedAt: 4, retired: C.tableName });
  });
});

describe("background re-embedding", () => {
  let dir: string;
  let lance: string;
  let db: Db;
  let open: SwitchingIndex[] = [];
  const logs: string[] = [];
  const log: Logger = { info: (m) => logs.push(m), error: (m) => logs.push("ERROR " + m) };
  const orgId = newId();
  const corpusId = newId();
  let chunks: FakeChunk[];

  const deps = (configured: FakeEmbedder, installed: FakeEmbedder[], extra: Partial<ReembedDeps> = {}): ReembedDeps =>
    ({ dir: lance, db, models: fakeRegistry(configured, installed), log, now: Date.now, batch: 4, pauseMs: 0, graceMs: 0, ...extra });
  const start = async (d: ReembedDeps) => {
    const ix = await openReembeddingIndex(d);
    open.push(ix);
    return ix;
  };
  const stop = async (ix: SwitchingIndex) => {
    open = open.filter((x) => x !== ix);
    await ix.close();
  };
  const live = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM chunks WHERE deleted_at IS NULL").get()!.n;
  const tableCount = async (name: string, embedderId: string) => {
    const ix = await openLanceIndex(lance, embedderId, 1, { tableName: name });
    try {
      return await ix.count();
    } finally {
      await ix.close();
    }
  };

  /** A server's first run with model A: chunks indexed under A's table. */
  const seedWithA = async (a: FakeEmbedder) => {
    chunks = [
      ...insertDoc(db, orgId, corpusId, Array.from({ length: 10 }, (_, i) => `alpha passage number ${i}`)),
      ...insertDoc(db, orgId, corpusId, Array.from({ length: 7 }, (_, i) => `beta passage number ${i}`)),
    ];
    const ix = await start(deps(a, [a]));
    expect(ix.status()).toEqual({ state: "ready", active: "fake-a", done: 0, total: 0 });
    const vs = await a.embed(chunks.map((c) => c.text), "passage");
    await ix.add(chunks.map((c, i) => ({ ...c, vector: vs[i]! })));
    await stop(ix);
    // A PATCH changed one body; the index still holds (and must re-embed) the original text.
    db.query("UPDATE chunks SET body = 'patched body' WHERE id = ?").run(chunks[0]!.id);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kbqa-reembed-"));
    lance = join(dir, "lance");
    db = openDb(dir);
    logs.length = 0;
  });
  afterEach(async () => {
    for (const ix of open) await ix.close();
    open = [];
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("model change: searches use the old table while the new one is built, dual writes, atomic switch, old table dropped", async () => {
    const a = fakeEmbedder("fake-a", 8);
    await seedWithA(a);
    expect(readIndexState(db)).toEqual({ active: A, cursor: "", done: 0, total: 0 });

    const b = fakeEmbedder("fake-b", 12);
    let release!: () => void;
    b.gate = new Promise<void>((r) => (release = r));
    const ix = await start(deps(b, [a, b]));
    expect(ix.status()).toEqual({ state: "rebuilding", active: "fake-a", building: "fake-b", done: 0, total: 17 });

    // Questions are embedded with A (the active table's model) and find the exact chunk.
    const q = ix.queryEmbedder();
    expect(q.id).toBe("fake-a");
    const [qv] = await q.embed([chunks[12]!.text], "query");
    expect((await ix.searchVector(orgId, [corpusId], qv!, 1)).map((h) => h.chunkId)).toEqual([chunks[12]!.id]);
    expect((await ix.searchText(orgId, [corpusId], "beta", 50)).length).toBe(7);

    // An ingestion during the rebuild writes B vectors; the old table gets them re-embedded with A.
    const fresh = insertDoc(db, orgId, corpusId, ["gamma late arrival"]);
    const bv = await fakeEmbedder("fake-b", 12).embed(["gamma late arrival"], "passage");
    const write = ix.replaceDocument(orgId, fresh[0]!.documentId, [{ ...fresh[0]!, vector: bv[0]! }]);
    release();
    await write;
    const [gq] = await ix.queryEmbedder().embed(["gamma late arrival"], "query");
    // Whichever table is active by now, the question's vector matches that table's model.
    expect((await ix.searchVector(orgId, [corpusId], gq!, 1)).map((h) => h.chunkId)).toEqual([fresh[0]!.id]);

    await waitFor(() => ix.status().state === "ready", "rebuild finished", 20_000);
    expect(ix.status()).toEqual({ state: "ready", active: "fake-b", done: 18, total: 18 });
    expect(readIndexState(db)).toMatchObject({ active: B, done: 18, total: 18 });
    expect(ix.tableName).toBe(B.tableName);
    expect(ix.dims).toBe(12);
    expect(await ix.count()).toBe(live());
    // The indexed text was re-embedded, not the patched body.
    expect(b.passages).toContain(chunks[0]!.text);
    expect(b.passages).not.toContain("patched body");
    expect((await ix.texts([chunks[0]!.id])).get(chunks[0]!.id)).toBe(chunks[0]!.text);

    const [nq] = await ix.queryEmbedder().embed([chunks[3]!.text], "query");
    expect((await ix.searchVector(orgId, [corpusId], nq!, 1)).map((h) => h.chunkId)).toEqual([chunks[3]!.id]);
    expect((await ix.searchText(orgId, [corpusId], "gamma", 5)).map((h) => h.chunkId)).toEqual([fresh[0]!.id]);
    await waitFor(async () => !(await listLanceTables(lance)).some((t) => t.name === A.tableName), "old table dropped", 10_000);
    await waitFor(() => readIndexState(db)?.retired === undefined, "retirement recorded", 10_000);
    expect(logs).toContain("vector index switched to the new embedding model");
  });

  test("a crash mid-rebuild resumes from the recorded cursor without re-embedding finished batches", async () => {
    const a = fakeEmbedder("fake-a", 8);
    await seedWithA(a);
    const b = fakeEmbedder("fake-b", 12);
    b.failOnCall = 3; // batches of 4: two batches land, the third fails
    const first = await start(deps(b, [a, b]));
    await waitFor(() => logs.some((l) => l.startsWith("ERROR re-embedding failed")), "rebuild stopped", 10_000);
    expect(first.status()).toEqual({ state: "rebuilding", active: "fake-a", building: "fake-b", done: 8, total: 17 });
    expect(readIndexState(db)).toMatchObject({ active: A, building: B, cursor: chunks[7]!.id, done: 8, total: 17 });
    await stop(first);
    expect(b.passages).toEqual(chunks.slice(0, 8).map((c) => c.text));

    // A chunk deleted while the server was down is left out of the new table.
    db.query("UPDATE chunks SET deleted_at = 1 WHERE id = ?").run(chunks[16]!.id);
    b.passages.length = 0;
    const second = await start(deps(b, [a, b]));
    await waitFor(() => second.status().state === "ready", "resumed rebuild finished", 20_000);
    expect(b.passages).toEqual(chunks.slice(8, 16).map((c) => c.text));
    expect(second.status()).toEqual({ state: "ready", active: "fake-b", done: 16, total: 16 });
    expect(await second.count()).toBe(16);
    expect(logs).toContain("resuming re-embedding");
  });

  test("a failed batch is retried in the same run, from the recorded cursor", async () => {
    const a = fakeEmbedder("fake-a", 8);
    await seedWithA(a);
    const b = fakeEmbedder("fake-b", 12);
    b.failOnCall = 2;
    const ix = await start(deps(b, [a, b], { retryMs: 20 }));
    await waitFor(() => ix.status().state === "ready", "rebuild finished after a retry", 20_000);
    expect(logs.filter((l) => l.startsWith("ERROR re-embedding failed")).length).toBe(1);
    expect(b.passages).toEqual(chunks.map((c) => c.text));
    expect(ix.status()).toEqual({ state: "ready", active: "fake-b", done: 17, total: 17 });
  });

  test("a chunk deleted while its batch is being embedded does not reach the new table", async () => {
    const a = fakeEmbedder("fake-a", 8);
    await seedWithA(a);
    const b = fakeEmbedder("fake-b", 12);
    let release!: () => void;
    b.gate = new Promise<void>((r) => (release = r));
    const ix = await start(deps(b, [a, b]));
    await waitFor(() => b.calls === 1, "first batch being embedded", 5_000);
    db.query("UPDATE chunks SET deleted_at = 1 WHERE id = ?").run(chunks[1]!.id);
    await ix.deleteChunks(orgId, [chunks[1]!.id]); // what the chunk service does after its commit
    release();
    await waitFor(() => ix.status().state === "ready", "rebuild finished", 20_000);
    expect(await ix.count()).toBe(16);
    expect((await ix.texts([chunks[1]!.id])).size).toBe(0);
  });

  test("reverting to the active model abandons the partial rebuild and drops its table", async () => {
    const a = fakeEmbedder("fake-a", 8);
    await seedWithA(a);
    const b = fakeEmbedder("fake-b", 12);
    b.failOnCall = 2;
    const first = await start(deps(b, [a, b]));
    await waitFor(() => logs.some((l) => l.startsWith("ERROR re-embedding failed")), "rebuild stopped", 10_000);
    await stop(first);
    expect((await listLanceTables(lance)).map((t) => t.name).sort()).toEqual([A.tableName, B.tableName]);

    const again = await start(deps(a, [a, b]));
    expect(again.status()).toEqual({ state: "ready", active: "fake-a", done: 0, total: 0 });
    expect(readIndexState(db)).toEqual({ active: A, cursor: "", done: 0, total: 0, startedAt: expect.any(Number) });
    expect((await listLanceTables(lance)).map((t) => t.name)).toEqual([A.tableName]);
    expect(await again.count()).toBe(17);
  });

  test("the old model is gone: full-text search keeps working and questions use the new model", async () => {
    const a = fakeEmbedder("fake-a", 8);
    await seedWithA(a);
    const b = fakeEmbedder("fake-b", 12);
    let release!: () => void;
    b.gate = new Promise<void>((r) => (release = r));
    const ix = await start(deps(b, [b])); // fake-a no longer installed
    expect(logs.some((l) => l.startsWith("ERROR the model of the active vector table is not installed"))).toBe(true);
    expect(ix.queryEmbedder().id).toBe("fake-b");
    expect((await ix.searchText(orgId, [corpusId], "alpha", 50)).length).toBe(10);
    // An ingestion still reaches the old table (full text) with a placeholder vector.
    const fresh = insertDoc(db, orgId, corpusId, ["delta"]);
    const write = ix.add([{ ...fresh[0]!, vector: new Float32Array(12).fill(0.1) }]);
    release();
    await write;
    await waitFor(() => ix.status().state === "ready", "rebuild finished", 20_000);
    expect(await ix.count()).toBe(18);
  });

  test("a data directory from before index_state: its table is recorded as active, unknown model ids kept by table name", async () => {
    const old = await openLanceIndex(lance, "retired-model", 8);
    const [v] = await fakeEmbedder("x", 8).embed(["t"], "passage");
    await old.add([{ chunkId: orderedId(), orgId, corpusId, documentId: newId(), generation: 1, text: "t", vector: v! }]);
    await old.close();
    const b = fakeEmbedder("fake-b", 12);
    const ix = await start(deps(b, [b]));
    expect(readIndexState(db)).toMatchObject({ active: { embedderId: tableNameFor("retired-model"), tableName: tableNameFor("retired-model") }, building: B });
    await waitFor(() => ix.status().state === "ready", "rebuild finished", 20_000);
    expect(ix.status().active).toBe("fake-b");
  });
});
