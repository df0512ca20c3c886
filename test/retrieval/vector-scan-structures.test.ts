import { describe, expect, test } from "bun:test";
import { newId, orderedId } from "../../src/store/ids.ts";
import { IdTable } from "../../src/store/id-table.ts";
import { packUuid, packUuidBytes, stringHash, unpackUuid } from "../../src/store/id-words.ts";
import { createVectorScan, SCAN_MAX_BYTES, type ScanRow, type VectorScan } from "../../src/store/vector-scan.ts";
import { rng } from "../helpers/seeded.ts";

// The in-memory vector copy keeps its ids as words in typed arrays, finds them through an
// open-addressing hash table, and chains each document's rows through per-row arrays. These
// tests drive those structures through churn against a plain reference model.

const rand = rng(11);
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
const DIMS = 16;
const vec = () => Float32Array.from({ length: DIMS }, () => rand() * 2 - 1);

describe("ids as words", () => {
  test("a canonical UUID packs into four words and back to the same string", () => {
    const w = new Int32Array(8);
    for (const id of [newId(), orderedId(), "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "0123abcd-89ef-4a5b-8c6d-7e8f90a1b2c3"]) {
      expect(packUuid(id, w, 4)).toBe(true);
      expect(unpackUuid(w, 4)).toBe(id);
    }
  });

  test("anything else is refused, so it is kept as the string it is", () => {
    const w = new Int32Array(4);
    const id = "0123abcd-89ef-4a5b-8c6d-7e8f90a1b2c3";
    const others = [
      id.toUpperCase(), id.slice(1), id + "0", "chunk-1", "", id.replace(/-/g, "") + "xxxx",
      id.slice(0, 8) + "x" + id.slice(9), id.slice(0, 13) + "0" + id.slice(14), id.slice(0, 18) + "0" + id.slice(19),
      id.slice(0, 35) + "g", id.slice(0, 20) + "G" + id.slice(21),
    ];
    for (const s of others) expect([s, packUuid(s, w, 0)]).toEqual([s, false]);
    expect([...w]).toEqual([0, 0, 0, 0]);
  });

  test("packing from UTF-8 bytes accepts exactly what packing the string does, to the same words", () => {
    const id = "0123abcd-89ef-4a5b-8c6d-7e8f90a1b2c3";
    const all = [newId(), orderedId(), id, id.toUpperCase(), id.slice(1), id + "0", "chunk-1", "", id.slice(0, 13) + "0" + id.slice(14),
      id.slice(0, 35) + "g", id.slice(0, 20) + "é" + id.slice(22), id.slice(0, 35) + "\u00e9"];
    for (const s of all) {
      const bytes = new TextEncoder().encode("xy" + s + "z");
      const a = new Int32Array(4), b = new Int32Array(4);
      expect([s, packUuidBytes(bytes, 2, bytes.length - 1, b, 0), [...b]]).toEqual([s, packUuid(s, a, 0), [...a]]);
    }
  });
});

describe("id table", () => {
  test("finds every key through growth and removals, the same id in many organizations included", () => {
    const t = new IdTable();
    const ids = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? `odd-${i}` : newId()));
    const keys = ids.flatMap((id, i) => [0, 1, 2].map((org) => ({ org, id, record: i * 3 + org })));
    for (let n = 0; n < keys.length; n += 500) {
      t.resize(n + 500);
      for (const k of keys.slice(n, n + 500)) t.insert(k.record, k.org, k.id);
    }
    const live = new Set(keys);
    for (const k of keys) if (rand() < 0.5) {
      t.remove(k.record);
      live.delete(k);
    }
    const found = keys.map((k) => [k.org, k.id, t.find(k.org, k.id)]);
    expect(found).toEqual(keys.map((k) => [k.org, k.id, live.has(k) ? k.record : -1]));
    expect([...live].map((k) => t.idOf(k.record))).toEqual([...live].map((k) => k.id));
    expect(t.find(3, ids[1]!)).toBe(-1);
  });

  test("a string id whose words equal a UUID's stays a different key", () => {
    const t = new IdTable();
    t.resize(4);
    const odd = "chunk-1";
    const w = new Int32Array([stringHash(odd), 0, 0, 0]);
    const twin = unpackUuid(w, 0); // packs to exactly the words the string id is kept under
    t.insert(0, 5, odd);
    expect(t.find(5, twin)).toBe(-1);
    t.insert(1, 5, twin);
    expect([t.find(5, odd), t.find(5, twin), t.idOf(0), t.idOf(1)]).toEqual([0, 1, odd, twin]);
    t.remove(0);
    expect([t.find(5, odd), t.find(5, twin)]).toEqual([-1, 1]);
  });

  test("an insert right after a missed find, or after other lookups and changes, holds the right key", () => {
    const t = new IdTable();
    t.resize(64);
    const [a, b, c, d] = [newId(), newId(), newId(), "plain-id"];
    t.insert(0, 1, a);
    expect(t.find(1, b)).toBe(-1);
    expect(t.find(1, a)).toBe(0); // another key parsed since the miss
    expect(t.extraFor(d)).toBeGreaterThan(0);
    t.insert(1, 1, b);
    expect(t.find(1, c)).toBe(-1);
    t.remove(0); // the table changed since the miss
    t.insert(2, 1, c);
    expect(t.find(1, d)).toBe(-1);
    t.insert(3, 1, d); // the plain miss path
    expect([a, b, c, d].map((id) => [t.find(1, id), t.find(2, id)])).toEqual([[-1, -1], [1, -1], [2, -1], [3, -1]]);
    expect([1, 2, 3].map((r) => t.idOf(r))).toEqual([b, c, d]);
  });

  test("removal keeps a long collision run findable (backward shift, no tombstones)", () => {
    // Many keys in a small table: long probe runs that wrap around the table's end.
    const t = new IdTable();
    t.resize(8); // 16 entries
    const ids = Array.from({ length: 8 }, () => newId());
    ids.forEach((id, i) => t.insert(i, 0, id));
    for (const gone of [3, 0, 7, 5]) {
      t.remove(gone);
      ids[gone] = "";
      expect(ids.map((id, i) => (id ? t.find(0, id) === i : true))).toEqual(ids.map(() => true));
    }
    const again = newId();
    t.insert(0, 0, again);
    expect(t.find(0, again)).toBe(0);
  });
});

/** What the copy should hold: (org, chunk) → row. */
type Model = Map<string, ScanRow>;
const keyOf = (org: string, id: string) => `${org} ${id}`;

function expectSame(scan: VectorScan, model: Model, orgs: string[], corpora: string[], docsOf: Map<string, string[]>) {
  expect(scan.size).toBe(model.size);
  const listed = (org: string, cs: string[]) => scan.search(org, cs, vec(), 1_000_000).map((h) => `${h.chunkId} ${h.documentId} ${h.corpusId}`).sort();
  const want = (org: string, cs: string[]) => [...model.values()].filter((r) => r.orgId === org && cs.includes(r.corpusId)).map((r) => `${r.chunkId} ${r.documentId} ${r.corpusId}`).sort();
  for (const org of orgs) {
    for (const c of corpora) expect(listed(org, [c])).toEqual(want(org, [c]));
    expect(listed(org, corpora)).toEqual(want(org, corpora));
    const docs = docsOf.get(org)!;
    const heldDocs = new Set([...model.values()].filter((r) => r.orgId === org).map((r) => r.documentId));
    expect(docs.map((d) => scan.hasDocument(org, d))).toEqual(docs.map((d) => heldDocs.has(d)));
  }
}

describe("vector copy under churn", () => {
  for (const kind of ["UUID ids", "string ids", "mixed ids"] as const) {
    test(`matches a reference model through adds, replaces, moves and deletes (${kind})`, () => {
      const id = (i: number) => (kind === "UUID ids" || (kind === "mixed ids" && i % 3) ? newId() : `id-${i}`);
      const orgs = [newId(), newId(), newId()];
      const corpora = [newId(), newId(), "corpus-x"];
      // The same chunk and document ids in every organization: keys are (organization, id).
      const chunkIds = Array.from({ length: 600 }, (_, i) => id(i));
      const docIds = Array.from({ length: 60 }, (_, i) => id(1000 + i));
      const docsOf = new Map(orgs.map((o) => [o, docIds]));
      const scan = createVectorScan(DIMS)!;
      const model: Model = new Map();
      const gens = new Map<string, number>(); // (org, document) → current generation
      const rowFor = (org: string, chunk: string): ScanRow => {
        const documentId = pick(docIds);
        const g = gens.get(keyOf(org, documentId)) ?? 1;
        return { orgId: org, chunkId: chunk, corpusId: pick(corpora), documentId, generation: g, vector: vec() };
      };
      for (let step = 0; step < 60; step++) {
        const org = pick(orgs);
        const op = rand();
        if (op < 0.45) {
          // A batch of new and already held chunks (a held one moves to the row's document and corpus).
          const batch = Array.from({ length: 1 + Math.floor(rand() * 120) }, () => rowFor(pick(orgs), pick(chunkIds)));
          expect(scan.upsert(batch)).toBe(true);
          for (const r of batch) model.set(keyOf(r.orgId, r.chunkId), r);
        } else if (op < 0.7) {
          const d = pick(docIds);
          const withGen = rand() < 0.5 ? (gens.get(keyOf(org, d)) ?? 1) : undefined;
          scan.deleteDocument(org, d, withGen);
          for (const [k, r] of model) if (r.orgId === org && r.documentId === d && (withGen === undefined || r.generation === withGen)) model.delete(k);
          gens.set(keyOf(org, d), (gens.get(keyOf(org, d)) ?? 1) + 1); // the next rows are a new generation
        } else if (op < 0.85) {
          const ids = Array.from({ length: 20 }, () => pick(chunkIds));
          scan.deleteChunks(org, ids);
          for (const c of ids) model.delete(keyOf(org, c));
        } else {
          // A document with rows of two generations: deleting the old one keeps the new.
          const d = pick(docIds);
          const g = (gens.get(keyOf(org, d)) ?? 1) + 1;
          gens.set(keyOf(org, d), g);
          const batch = Array.from({ length: 5 }, () => ({ ...rowFor(org, pick(chunkIds)), documentId: d, generation: g }));
          scan.upsert(batch);
          for (const r of batch) model.set(keyOf(r.orgId, r.chunkId), r);
          scan.deleteDocument(org, d, g - 1);
          for (const [k, r] of model) if (r.orgId === org && r.documentId === d && r.generation === g - 1) model.delete(k);
        }
        expectSame(scan, model, orgs, corpora, docsOf);
        const sample = Array.from({ length: 30 }, () => [pick(orgs), pick(chunkIds)] as const);
        expect(sample.map(([o, c]) => scan.hasChunk(o, c))).toEqual(sample.map(([o, c]) => model.has(keyOf(o, c))));
      }
      // Everything deleted: nothing is found, and freed slots and documents take new rows.
      for (const org of orgs) for (const d of docIds) scan.deleteDocument(org, d);
      expect(scan.size).toBe(0);
      expectSame(scan, new Map(), orgs, corpora, docsOf);
      const refill = chunkIds.slice(0, 300).map((c) => rowFor(orgs[0]!, c));
      scan.upsert(refill);
      expectSame(scan, new Map(refill.map((r) => [keyOf(r.orgId, r.chunkId), r])), orgs, corpora, docsOf);
    });
  }

  test("rows and documents deleted free their room: the same number again takes no more bytes", () => {
    const [org, corpus] = [newId(), newId()];
    const scan = createVectorScan(DIMS)!;
    const fill = () => {
      let doc = "";
      return Array.from({ length: 1024 }, (_, i) => {
        if (i % 8 === 0) doc = newId();
        return { chunkId: orderedId(), orgId: org, corpusId: corpus, documentId: doc, generation: 1, vector: vec() };
      });
    };
    const first = fill();
    scan.upsert(first);
    const held = scan.bytes;
    for (let i = 0; i < 1024; i += 8) scan.deleteDocument(org, first[i]!.documentId);
    expect({ size: scan.size, chunk: scan.hasChunk(org, first[5]!.chunkId), doc: scan.hasDocument(org, first[5]!.documentId) }).toEqual({ size: 0, chunk: false, doc: false });
    const second = fill();
    scan.upsert(second);
    expect({ size: scan.size, bytes: scan.bytes }).toEqual({ size: 1024, bytes: held });
    expect(scan.search(org, [corpus], second[700]!.vector, 1).map((h) => [h.chunkId, h.documentId, h.corpusId])).toEqual([[second[700]!.chunkId, second[700]!.documentId, corpus]]);
  });

  test("a search never reads another organization's or corpus's rows, after churn", () => {
    const [a, b] = [newId(), newId()];
    const [c1, c2] = [newId(), newId()];
    const scan = createVectorScan(DIMS)!;
    const v = vec();
    const shared = Array.from({ length: 50 }, () => newId()); // the same chunk ids in both organizations
    scan.upsert(shared.map((chunkId, i) => ({ chunkId, orgId: a, corpusId: i % 2 ? c1 : c2, documentId: "d", generation: 1, vector: v })));
    scan.upsert(shared.map((chunkId) => ({ chunkId, orgId: b, corpusId: c1, documentId: "d", generation: 1, vector: v })));
    scan.deleteDocument(b, "d");
    scan.upsert(shared.slice(0, 10).map((chunkId) => ({ chunkId, orgId: b, corpusId: c2, documentId: "e", generation: 1, vector: v })));
    const got = (org: string, cs: string[]) => scan.search(org, cs, v, 1000).map((h) => `${h.chunkId} ${h.documentId} ${h.corpusId}`).sort();
    expect(got(a, [c1])).toEqual(shared.filter((_, i) => i % 2).map((c) => `${c} d ${c1}`).sort());
    expect(got(b, [c1])).toEqual([]);
    expect(got(b, [c1, c2])).toEqual(shared.slice(0, 10).map((c) => `${c} e ${c2}`).sort());
    expect(got(newId(), [c1, c2])).toEqual([]);
  });

  test("holds little beyond the vectors: under 900 bytes per row of 384 dimensions when sized for its rows", () => {
    const dims = 384;
    const rows = 16_384;
    const scan = createVectorScan(dims, SCAN_MAX_BYTES, rows)!; // as a load from the table makes it
    const orgs = [newId(), newId()], corpora = [newId(), newId(), newId()];
    for (let at = 0; at < rows; at += 1024) {
      const org = pick(orgs);
      let doc = newId();
      scan.upsert(Array.from({ length: 1024 }, (_, i) => {
        if (i % 10 === 0) doc = newId();
        return { chunkId: orderedId(), orgId: org, corpusId: pick(corpora), documentId: doc, generation: 1, vector: Float32Array.from({ length: dims }, () => rand() - 0.5) };
      }));
    }
    expect(scan.size).toBe(rows);
    const held = scan.bytes;
    expect(held / rows).toBeLessThan(900); // vectors and residuals alone: 768
    // Sizing ahead is only a start: more rows still fit, by growing.
    scan.upsert([{ chunkId: orderedId(), orgId: orgs[0]!, corpusId: corpora[0]!, documentId: newId(), generation: 1, vector: Float32Array.from({ length: dims }, () => rand() - 0.5) }]);
    scan.upsert(Array.from({ length: 1000 }, () => ({ chunkId: orderedId(), orgId: orgs[0]!, corpusId: corpora[0]!, documentId: newId(), generation: 1, vector: Float32Array.from({ length: dims }, () => rand() - 0.5) })));
    expect(scan.size).toBe(rows + 1001);
    expect(scan.bytes).toBeGreaterThan(held);
  });
});
