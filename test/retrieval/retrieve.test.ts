import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { createBuiltinEmbedder } from "../../src/models/builtin-embed.ts";
import type { VectorHit, VectorIndex } from "../../src/store/vector.ts";
import { newTimings, retrieve } from "../../src/retrieval/retrieve.ts";
import type { ModelRegistry } from "../../src/models/registry.ts";

// A fake index that answers from fixed lists, including hits it should never return
// (other corpus, deleted chunks), to show retrieval does not trust it.
const dir = mkdtempSync(join(tmpdir(), "kbqa-retrieve-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = openDb(dir);
const ORG = "11111111-1111-4111-8111-111111111111";
const C1 = "c1000000-0000-4000-8000-000000000000";
const C2 = "c2000000-0000-4000-8000-000000000000";

function doc(id: string, corpus: string, o: { generation?: number; status?: string; deleted?: boolean } = {}) {
  db.query(
    `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, deleted_at, blob_key, generation)
     VALUES (?, ?, ?, ?, 'text/markdown', ?, 0, 0, ?, 'k', ?)`,
  ).run(id, ORG, corpus, id + ".md", o.status ?? "READY", o.deleted ? 1 : null, o.generation ?? 1);
}
function chunk(id: string, docId: string, corpus: string, body: string, o: { generation?: number; deleted?: boolean; pages?: number[] } = {}) {
  db.query(
    `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, pages, hash, body, created_at, deleted_at)
     VALUES (?, ?, ?, ?, ?, 0, ?, 'h', ?, 0, ?)`,
  ).run(id, ORG, corpus, docId, o.generation ?? 1, JSON.stringify(o.pages ?? [1]), body, o.deleted ? 1 : null);
}

doc("d-live", C1);
doc("d-deleted", C1, { deleted: true });
doc("d-replaced", C1, { generation: 2 });
doc("d-other", C2);
chunk("k-live", "d-live", C1, "patched text from sqlite", { pages: [4, 5] });
chunk("k-deleted", "d-live", C1, "deleted chunk", { deleted: true });
chunk("k-of-deleted-doc", "d-deleted", C1, "chunk of a deleted document");
chunk("k-old-gen", "d-replaced", C1, "old generation", { generation: 1 });
chunk("k-other-corpus", "d-other", C2, "other corpus");
chunk("k-second", "d-live", C1, "second live chunk", { pages: [2] });

const asHit = (chunkId: string, documentId: string, corpusId: string): VectorHit => ({ chunkId, documentId, corpusId, score: 1 });
const calls: { kind: string; corpusIds: string[]; limit: number }[] = [];
const fakeIndex = (vec: VectorHit[], txt: VectorHit[]): VectorIndex => ({
  add: async () => {}, deleteDocument: async () => {}, deleteChunks: async () => {}, countDocument: async () => 0, close: async () => {},
  searchVector: async (_o, corpusIds, _v, limit) => (calls.push({ kind: "vector", corpusIds, limit }), vec.slice(0, limit)),
  searchText: async (_o, corpusIds, _q, limit) => (calls.push({ kind: "text", corpusIds, limit }), txt.slice(0, limit)),
});
const models = { embedder: () => createBuiltinEmbedder() } as unknown as ModelRegistry;

describe("retrieve", () => {
  const all = [
    asHit("k-deleted", "d-live", C1),
    asHit("k-of-deleted-doc", "d-deleted", C1),
    asHit("k-old-gen", "d-replaced", C1),
    asHit("k-other-corpus", "d-other", C2),
    asHit("k-live", "d-live", C1),
    asHit("k-second", "d-live", C1),
  ];

  test("only live chunks of the asked corpora come back, with their current text and pages", async () => {
    const got = await retrieve({ db, models, vectors: fakeIndex(all, [...all].reverse()) }, ORG, [C1], "question", { topK: 5 });
    expect(got.map((c) => ({ id: c.chunkId, text: c.text, pages: c.pages, title: c.title }))).toEqual([
      { id: "k-second", text: "second live chunk", pages: [2], title: "d-live.md" },
      { id: "k-live", text: "patched text from sqlite", pages: [4, 5], title: "d-live.md" },
    ]);
  });

  test("modes: vector-only and bm25-only use one list each", async () => {
    calls.length = 0;
    const vecOnly = await retrieve({ db, models, vectors: fakeIndex(all, []) }, ORG, [C1], "q", { topK: 1, mode: "vector" });
    expect(vecOnly.map((c) => c.chunkId)).toEqual(["k-live"]);
    expect(calls.map((c) => c.kind)).toEqual(["vector"]);
    calls.length = 0;
    const textOnly = await retrieve({ db, models, vectors: fakeIndex([], [...all].reverse()) }, ORG, [C1], "q", { topK: 1, mode: "bm25" });
    expect(textOnly.map((c) => c.chunkId)).toEqual(["k-second"]);
    expect(calls.map((c) => c.kind)).toEqual(["text"]);
  });

  test("a hit list filled with dead chunks is read deeper until topK live ones are found", async () => {
    const dead = Array.from({ length: 30 }, () => asHit("k-deleted", "d-live", C1));
    calls.length = 0;
    const got = await retrieve({ db, models, vectors: fakeIndex([...dead, asHit("k-live", "d-live", C1)], []) }, ORG, [C1], "q", {
      topK: 1, mode: "vector", depth: 10,
    });
    expect(got.map((c) => c.chunkId)).toEqual(["k-live"]);
    expect(calls.map((c) => c.limit)).toEqual([10, 40]);
  });

  test("timings count the rounds and time every phase", async () => {
    const dead = Array.from({ length: 30 }, () => asHit("k-deleted", "d-live", C1));
    const timings = newTimings();
    await retrieve({ db, models, vectors: fakeIndex([...dead, asHit("k-live", "d-live", C1)], dead) }, ORG, [C1], "q", { topK: 1, depth: 10, timings });
    expect(timings.rounds).toBe(2);
    for (const k of ["embed", "vector", "text", "fuse", "live"] as const) expect(timings[k]).toBeGreaterThan(0);
  });

  test("no corpus or topK 0 asks nothing", async () => {
    calls.length = 0;
    expect(await retrieve({ db, models, vectors: fakeIndex(all, all) }, ORG, [], "q", { topK: 3 })).toEqual([]);
    expect(await retrieve({ db, models, vectors: fakeIndex(all, all) }, ORG, [C1], "q", { topK: 0 })).toEqual([]);
    expect(calls).toEqual([]);
  });
});
