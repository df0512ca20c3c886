/**
 * Fakes for the re-embedding tests: deterministic embedders of different widths (same text,
 * same vector; different texts, unrelated vectors), a registry serving them by id, and a
 * database with documents and chunks inserted directly.
 */
import type { ModelRegistry } from "../../src/models/registry.ts";
import type { Embedder, ModelInfo } from "../../src/models/types.ts";
import type { Db } from "../../src/store/db.ts";
import { newId, orderedId } from "../../src/store/ids.ts";

export interface FakeEmbedder extends Embedder {
  /** Every text embedded as a passage, in order. */
  passages: string[];
  /** When set, each embed() call waits for it (the test holds a rebuild mid-way). */
  gate?: Promise<void>;
  /** Throws on this call number (1-based), once: a crash mid-rebuild. */
  failOnCall?: number;
  calls: number;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function fakeEmbedder(id: string, dims: number): FakeEmbedder {
  const e: FakeEmbedder = {
    id, dims, passages: [], calls: 0,
    async embed(texts, kind) {
      e.calls++;
      if (e.failOnCall === e.calls) {
        e.failOnCall = undefined;
        throw new Error("simulated crash");
      }
      if (e.gate) await e.gate;
      if (kind === "passage") e.passages.push(...texts);
      return texts.map((t) => {
        let seed = hash(id + "\u0000" + t);
        const v = Float32Array.from({ length: dims }, () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5);
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      });
    },
  };
  return e;
}

export function fakeRegistry(configured: FakeEmbedder, installed: FakeEmbedder[]): ModelRegistry {
  const byId = new Map(installed.map((e) => [e.id, e]));
  const infos: ModelInfo[] = installed.map((e) => ({ id: e.id, role: "embedding", tier: "builtin", default: e === configured, dims: e.dims }));
  const no = () => { throw new Error("not used in this test"); };
  return {
    list: () => infos,
    embedder(id?: string) {
      if (id === undefined) return configured;
      const e = byId.get(id);
      if (!e) throw new Error(`unknown embedder ${id}`);
      return e;
    },
    has: (id, role) => role === "embedding" && byId.has(id),
    answerer: no, summariser: no, reranker: no, tokens: no,
    close: async () => {},
  };
}

export interface FakeChunk { id: string; chunkId: string; orgId: string; corpusId: string; documentId: string; generation: number; text: string }

/** One READY document (generation 1) with these chunk texts. */
export function insertDoc(db: Db, orgId: string, corpusId: string, texts: string[]): FakeChunk[] {
  const documentId = newId();
  const now = Date.now();
  db.query(
    `INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, created_at, updated_at, blob_key, generation)
     VALUES (?, ?, ?, 'f.txt', 'text/plain', 'READY', ?, ?, ?, 1)`,
  ).run(documentId, orgId, corpusId, now, now, `k/${documentId}`);
  return texts.map((text, seq) => {
    const id = orderedId();
    db.query(
      `INSERT INTO chunks (id, org_id, corpus_id, document_id, generation, seq, hash, body, created_at)
       VALUES (?, ?, ?, ?, 1, ?, 'h', ?, ?)`,
    ).run(id, orgId, corpusId, documentId, seq, text, now);
    return { id, chunkId: id, orgId, corpusId, documentId, generation: 1, text };
  });
}
