import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import { originalKey } from "../../src/store/blob-keys.ts";
import { newId } from "../../src/store/ids.ts";
import { openLanceIndex, type LanceIndex } from "../../src/store/lance.ts";
import { createBuiltinEmbedder, BUILTIN_EMBED_ID } from "../../src/models/builtin-embed.ts";
import { createBuiltinSummariser } from "../../src/models/builtin-summary.ts";
import { createBuiltinTokenCounter } from "../../src/models/builtin-tokens.ts";
import type { ModelRegistry } from "../../src/models/registry.ts";
import type { Embedder } from "../../src/models/types.ts";
import { isPrepared, prepareBatch, type PreparedJob } from "../../src/ingest/finish-batch.ts";
import { isParsed, parseJob, type IngestDeps, type ParsedJob } from "../../src/ingest/ingest-job.ts";
import { claim, loadDoc, type JobRow } from "../../src/ingest/job-store.ts";
import { offloadPlan, VECTORS_PER_MESSAGE } from "../../src/ingest/enrich.ts";
import { WorkerPool } from "../../src/ingest/pool.ts";
import type { WorkerMessage } from "../../src/ingest/worker.ts";
import { utf8 } from "../convert/fixtures.ts";

const builtinModels = { embedder: createBuiltinEmbedder, summariser: createBuiltinSummariser, tokens: createBuiltinTokenCounter } as unknown as ModelRegistry;

// 300 sections kept apart: more vectors than one IPC part, so they arrive in two.
const manySections = Array.from({ length: 300 }, (_, i) => `# Section ${i}\n\nThe inspector checks valve ${i} of the pumping station every morning before the shift starts.`).join("\n\n");
const french = "# Rapport\n\nLe service de la ville est ouvert tous les jours pour les habitants qui ont une question sur les travaux.\n\nLes équipes sont sur place dans la matinée et le chantier est fermé le dimanche.";

describe("built-in model work in the worker equals the server's own", () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-enrich-"));
  let db: Db;
  let vectors: LanceIndex;
  let pool: WorkerPool;
  let deps: IngestDeps;
  const org = newId(), corpus = newId();

  beforeAll(async () => {
    db = openDb(join(dir, "data"));
    vectors = await openLanceIndex(join(dir, "lance"), BUILTIN_EMBED_ID, 384);
    pool = new WorkerPool({ size: 1, timeoutMs: 60_000, memoryBytes: 2 ** 30 });
    deps = { db, blobs: new FsBlobStore(join(dir, "blobs")), vectors, models: builtinModels, pool, now: Date.now, log: { info() {}, error() {} }, maxAttempts: 3 };
  });
  afterAll(async () => {
    await pool?.close();
    await vectors?.close();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function parsedViaWorker(text: string, o: { lang?: string; chunk?: unknown } = {}): Promise<ParsedJob> {
    const id = newId();
    const bytes = utf8(text);
    await deps.blobs.put(originalKey(org, id), bytes);
    const now = Date.now();
    db.query(`INSERT INTO documents (id, org_id, corpus_id, filename, content_type, status, size, user_id, lang, chunk, created_at, updated_at, blob_key, generation)
              VALUES (?, ?, ?, 'f.md', 'text/markdown', 'PROCESSING', ?, 'u', ?, ?, ?, ?, ?, 1)`)
      .run(id, org, corpus, bytes.byteLength, o.lang ?? null, o.chunk === undefined ? null : JSON.stringify(o.chunk), now, now, originalKey(org, id));
    const jobId = Number(db.query("INSERT INTO jobs (org_id, document_id, generation, state, created_at) VALUES (?, ?, 1, 'queued', ?)").run(org, id, now).lastInsertRowid);
    const job = claim(db, { id: jobId, org_id: org, document_id: id, generation: 1, state: "queued", attempts: 0 } as JobRow, now)!;
    const r = await parseJob(deps, job);
    if (!isParsed(r)) throw new Error(`not parsed: ${JSON.stringify(r)}`);
    return r;
  }

  /** What write() would store, without the random chunk ids. */
  const comparable = (p: PreparedJob) => ({
    fields: { ...p.fields, chunks: p.fields.chunks.map(({ id: _id, ...c }) => c) },
    vectors: p.vectors.map((v) => Array.from(v)),
  });

  async function both(item: ParsedJob, d: IngestDeps = deps) {
    const { enriched, ...plain } = item;
    const [viaWorker, onServer] = await prepareBatch(d, [item, plain]);
    if (!isPrepared(viaWorker!) || !isPrepared(onServer!)) throw new Error("not prepared");
    return { enriched, viaWorker: comparable(viaWorker), onServer: comparable(onServer) };
  }

  test("many sections, language detected: summary, tokens, lang and every vector identical", async () => {
    const { enriched, viaWorker, onServer } = await both(await parsedViaWorker(manySections, { chunk: { combine_text_under_n_chars: 0 } }));
    expect(enriched?.vectors?.length).toBe(301); // summary + 300 sections, in two IPC parts
    expect(301).toBeGreaterThan(VECTORS_PER_MESSAGE);
    expect(viaWorker).toEqual(onServer);
    expect(onServer.fields.chunks.map((c) => c.kind)).toEqual(["summary", ...Array(300).fill("chunk")]);
    expect(onServer.fields.lang).toBe("en");
  });

  test("French, language detected, and a document whose lang is set", async () => {
    const fr = await both(await parsedViaWorker(french));
    expect(fr.enriched?.lang).toBe("fr");
    expect(fr.viaWorker).toEqual(fr.onServer);
    expect(fr.onServer.fields.summary.startsWith("## Résumé\n")).toBe(true);
    const de = await both(await parsedViaWorker(french, { lang: "de" }));
    expect(de.viaWorker).toEqual(de.onServer);
    expect(de.onServer.fields.lang).toBe("de");
    expect(de.onServer.fields.summary.startsWith("## Zusammenfassung\n")).toBe(true);
  });

  test("a rebuild that started after parsing: the worker's vectors are ignored, the server embeds", async () => {
    const item = await parsedViaWorker(french);
    // Poisoned worker vectors would show up if they were used.
    item.enriched!.vectors = item.enriched!.vectors!.map(() => new Float32Array(384).fill(1));
    const rebuilding = { ...deps, vectors: Object.assign(Object.create(vectors), { building: { embedderId: "other" } }) as LanceIndex };
    const { viaWorker, onServer } = await both(item, rebuilding);
    expect(viaWorker).toEqual(onServer);
    expect(viaWorker.vectors[0]!.every((x) => x === 1)).toBe(false);
  });

  test("progress of a document that is not small: stages with counts, vectors in parts", async () => {
    const seen: string[] = [];
    let parts = 0;
    const r = (await pool.run(
      { type: "parse", bytes: utf8(manySections), contentType: "text/markdown", chunk: { combine_text_under_n_chars: 0 }, progress: true, enrich: { lang: null, summary: true, tokens: true, embed: true } },
      { onMessage: (m: WorkerMessage) => (m.type === "stage" ? seen.push(`${m.stage} ${m.done ?? ""}/${m.total ?? ""}`) : m.type === "vectors" && parts++) },
    )) as { enriched: { count: number; vectors: Float32Array } };
    expect(seen).toEqual(["converting /", "chunking /", "summarising 0/1", "embedding 0/301", "embedding 256/301"]);
    expect(parts).toBe(1);
    expect([r.enriched.count, r.enriched.vectors.length]).toEqual([301, 45 * 384]);
  });
});

describe("offloadPlan: only the built-in models, embeddings only into a single table", () => {
  const onnx: Embedder = { id: "local-onnx", dims: 384, embed: async () => [] };
  const models = (embedder: () => Embedder, summariserId = "builtin-extractive-summary", tokensId = "builtin-approx") =>
    ({ embedder, summariser: () => ({ id: summariserId }), tokens: () => ({ id: tokensId }) }) as unknown as ModelRegistry;
  const single = {} as LanceIndex;

  test.each([
    ["all built-in", models(createBuiltinEmbedder), single, { summary: true, tokens: true, embed: true }],
    ["rebuild in progress", models(createBuiltinEmbedder), { building: {} } as unknown as LanceIndex, { summary: true, tokens: true, embed: false }],
    ["local embedder", models(() => onnx), single, { summary: true, tokens: true, embed: false }],
    ["built-in embedder with other dims", models(() => createBuiltinEmbedder(256)), single, { summary: true, tokens: true, embed: false }],
    ["local chat model", models(createBuiltinEmbedder, "local-gguf", "local-gguf"), single, { summary: false, tokens: false, embed: true }],
  ] as const)("%s", (_, m, v, want) => expect(offloadPlan(m, v)).toEqual(want));
});
