import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { newId, orderedId } from "../../src/store/ids.ts";
import { loadVectorCopy } from "../../src/store/lance.ts";
import { chunkSchema, scanColumns, toArrowTable } from "../../src/store/lance-rows.ts";
import { createVectorScan, SCAN_MAX_BYTES, type ScanRow, type VectorScan } from "../../src/store/vector-scan.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { rng } from "../helpers/seeded.ts";

// The load of the copy reads ids as bytes out of Arrow's buffers and skips upsert()'s room check
// when a bound shows it cannot matter. It must leave exactly the copy upsert() of the same rows
// leaves: same size and bytes, same answers to every search and lookup, and the same behaviour
// under the writes that follow (a row or document record placed differently would show there).

const rand = rng(5);
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
const DIMS = 20;
const vec = () => Float32Array.from({ length: DIMS }, () => (rand() < 0.02 ? 0 : rand() * 2 - 1));

const orgs = [newId(), newId(), "org-plain", newId().toUpperCase()];
const corpora = [newId(), newId(), "corpus-x"];
/** Chunk ids of every kind the copy keeps: canonical UUIDs (packed), and strings (test ids, upper case, non-ASCII). */
const chunkId = (i: number) => [orderedId, newId, () => `chunk-${i}`, () => newId().toUpperCase(), () => `chünk-${i}-é`][i % 5]!();

/**
 * Rows as the table would hold them: documents' rows together, several generations, and now and
 * then a chunk id seen before (in the same organization or another; consecutive too), an empty
 * vector direction (zero), an organization of a single row.
 */
function makeRows(n: number): VectorRecord[] {
  const out: VectorRecord[] = [];
  const seen: { orgId: string; chunkId: string }[] = [];
  while (out.length < n) {
    const orgId = pick(orgs), corpusId = pick(corpora);
    const documentId = rand() < 0.2 ? `doc-${out.length}` : newId();
    const generation = 1 + Math.floor(rand() * 3);
    for (let k = 1 + Math.floor(rand() * 12); k > 0 && out.length < n; k--) {
      let id = chunkId(out.length), org = orgId;
      const r = rand();
      if (r < 0.05 && seen.length) id = pick(seen).chunkId; // the same id again, maybe in another organization
      else if (r < 0.08 && out.length) id = out[out.length - 1]!.chunkId; // right after itself
      else if (r < 0.1 && seen.length) ({ chunkId: id, orgId: org } = pick(seen)); // replaces a row of its organization
      const row = { chunkId: id, orgId: org, corpusId, documentId, generation, text: "t", vector: vec() };
      out.push(row);
      seen.push(row);
    }
  }
  out.push({ chunkId: newId(), orgId: "lonely-org", corpusId: "c", documentId: newId(), generation: 1, text: "t", vector: vec() });
  return out;
}

const scanRow = (r: VectorRecord): ScanRow => ({ chunkId: r.chunkId, orgId: r.orgId, corpusId: r.corpusId, documentId: r.documentId, generation: r.generation, vector: r.vector });

function expectSameCopy(loaded: VectorScan, upserted: VectorScan, rows: VectorRecord[]) {
  expect(loaded.size).toBe(upserted.size);
  expect(loaded.bytes).toBe(upserted.bytes);
  const scopes = [...orgs, "lonely-org"].flatMap((o) => [[o, corpora], [o, [corpora[0]!]], [o, ["corpus-x"]], [o, ["c"]]] as const);
  for (let q = 0; q < 20; q++) {
    const v = vec();
    for (const [org, cs] of scopes) {
      for (const limit of [5, 100_000]) expect(loaded.search(org, [...cs], v, limit)).toEqual(upserted.search(org, [...cs], v, limit));
    }
  }
  const probe = [...rows.slice(0, 400), ...rows.slice(0, 50).map((r) => ({ ...r, orgId: pick(orgs) }))];
  expect(probe.map((r) => loaded.hasChunk(r.orgId, r.chunkId))).toEqual(probe.map((r) => upserted.hasChunk(r.orgId, r.chunkId)));
  expect(probe.map((r) => loaded.hasDocument(r.orgId, r.documentId))).toEqual(probe.map((r) => upserted.hasDocument(r.orgId, r.documentId)));
}

/** The same writes on both copies, then the comparison again. */
function churnBoth(a: VectorScan, b: VectorScan, rows: VectorRecord[]) {
  for (let i = 0; i < 30; i++) {
    const r = pick(rows);
    for (const s of [a, b]) {
      if (i % 3 === 0) s.deleteDocument(r.orgId, r.documentId, i % 2 ? r.generation : undefined);
      else if (i % 3 === 1) s.deleteChunks(r.orgId, [r.chunkId]);
    }
    if (i % 3 === 2) {
      const fresh = makeRows(15).map(scanRow);
      expect(a.upsert(fresh)).toBe(b.upsert(fresh));
    }
  }
  expectSameCopy(a, b, rows);
}

function batches(rows: VectorRecord[], size: number) {
  return Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));
}

describe("load() of columns equals upsert() of the same rows", () => {
  const rows = makeRows(3000);
  for (const [name, expected, batch] of [["sized for the rows", rows.length, 700], ["grown from empty", 0, 256], ["sized too small", 400, 333]] as const) {
    test(name, () => {
      const loaded = createVectorScan(DIMS, SCAN_MAX_BYTES, expected)!;
      const upserted = createVectorScan(DIMS, SCAN_MAX_BYTES, expected)!;
      for (const part of batches(rows, batch)) {
        const table = toArrowTable(part, DIMS, "t");
        // A batch read from LanceDB may be a slice of a bigger one: both shapes are fed.
        const half = part.length >> 1;
        for (const b of [table.slice(0, half), table.slice(half)]) expect(loaded.load(scanColumns(b.batches[0]! as never, DIMS))).toBe(true);
        expect(upserted.upsert(part.slice(0, half).map(scanRow))).toBe(true);
        expect(upserted.upsert(part.slice(half).map(scanRow))).toBe(true);
      }
      expectSameCopy(loaded, upserted, rows);
      churnBoth(loaded, upserted, rows);
    });
  }

  test("under a memory cap both refuse the same batch, and hold the same until then", () => {
    const full = createVectorScan(DIMS, SCAN_MAX_BYTES, rows.length)!;
    for (const part of batches(rows, 500)) full.upsert(part.map(scanRow));
    const cap = Math.floor(full.bytes * 0.6);
    const loaded = createVectorScan(DIMS, cap, 0)!, upserted = createVectorScan(DIMS, cap, 0)!;
    const outcomes: [boolean, boolean][] = [];
    for (const part of batches(rows, 500)) {
      outcomes.push([loaded.load(scanColumns(toArrowTable(part, DIMS, "t").batches[0]! as never, DIMS)), upserted.upsert(part.map(scanRow))]);
    }
    expect(outcomes.map(([a]) => a)).toEqual(outcomes.map(([, b]) => b));
    expect(outcomes.some(([a]) => !a)).toBe(true);
    expectSameCopy(loaded, upserted, rows);
  });
});

describe("loadVectorCopy() from a LanceDB table", () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-vector-load-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("holds what upsert() of the table's rows in its order holds", async () => {
    const conn = await lancedb.connect(dir);
    const table = await conn.createEmptyTable("chunks", chunkSchema(DIMS));
    // The table keeps one row per (organization, chunk), as the driver's writes do.
    const unique = [...new Map(makeRows(5000).map((r) => [`${r.orgId} ${r.chunkId}`, r])).values()];
    for (const part of batches(unique, 1200)) await table.add(toArrowTable(part, DIMS, "chunks"));
    await table.delete(`corpusId = '${corpora[1]}' AND generation = 2`);
    // The table's order, read by Arrow's own accessors batch by batch (toArray() was seen to
    // return empty strings for some rows of a table of many batches).
    const byKey = new Map(unique.map((r) => [`${r.orgId} ${r.chunkId}`, r]));
    const inOrder: VectorRecord[] = [];
    for await (const batch of table.query().select(["chunkId", "orgId"])) {
      const [ids, os] = [batch.getChild("chunkId")!, batch.getChild("orgId")!];
      for (let i = 0; i < batch.numRows; i++) inOrder.push(byKey.get(`${os.get(i)} ${ids.get(i)}`)!);
    }
    expect(inOrder.every((r) => r !== undefined)).toBe(true);
    const loaded = (await loadVectorCopy(table, DIMS, () => false))!;
    const upserted = createVectorScan(DIMS, SCAN_MAX_BYTES, inOrder.length)!;
    for (const part of batches(inOrder, 1024)) upserted.upsert(part.map(scanRow));
    expect(loaded.size).toBe(inOrder.length);
    expectSameCopy(loaded, upserted, inOrder);
    expect(await loadVectorCopy(table, DIMS, () => true)).toBeUndefined();
    table.close();
    conn.close();
  });
});
