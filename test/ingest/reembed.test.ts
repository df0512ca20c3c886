// The embedding model changes between two runs on the same data directory: the second run
// re-embeds every chunk in the background while questions keep being answered from the old
// vectors, shows its progress in GET /v1/config/model, then switches to the new table.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelRegistry, MODELS_DEFAULTS } from "../../src/models/registry.ts";
import { openLanceIndex, tableNameFor, listLanceTables } from "../../src/store/lance.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { sql } from "../documents/helpers.ts";
import { corpus, ingest, session } from "../posts/helpers.ts";
import { writeTinyOnnx } from "../models/helpers/tiny-onnx.ts";

const BUILTIN = "builtin-hash-embed";
const TINY = "tiny-embed";
const DOCS: Record<string, string> = {
  "kestrel.md": "# Lander\n\nThe Kestrel lander carries a drill.\n\n# Orbit\n\nThe orbit is polar and low.\n\n# Power\n\nSolar panels charge the batteries.\n\n# Radio\n\nThe radio talks to the relay satellite.",
  "pasta.md": "# Water\n\nPasta is cooked in salted water.\n\n# Time\n\nNine minutes is enough for spaghetti.\n\n# Sauce\n\nTomato sauce goes on top.\n\n# Cheese\n\nGrated cheese is optional.",
  "herons.md": "# Nests\n\nGrey herons nest in tall trees.\n\n# Food\n\nHerons eat fish and frogs.\n\n# Flight\n\nThey fly with slow wing beats.\n\n# Voice\n\nTheir call is a harsh croak.",
};
const LATE = "# Comet\n\nThe comet Halley returns every seventy six years.";
const vocab = [...new Set([...Object.values(DOCS), LATE, "what does the kestrel lander carry how often halley return"]
  .join(" ").toLowerCase().split(/[^a-z]+/).filter(Boolean))];

let dataDir: string;
let modelsDir: string;
let k: Kbqa | undefined;
let org: Org;
let cid: string;
let sid: string;
const docIds: Record<string, string> = {};

/** The org's JWT against whichever server runs now (org.api is bound to the first one). */
const api = async (method: string, path: string, body?: unknown) =>
  k!.request(method, path, body, { authorization: `Bearer ${await org.jwt()}`, ...(body === undefined ? {} : { "content-type": "application/json" }) });
/** The spec's upload flow against the current server: init, PUT, commit, poll until READY. */
const ingestNow = async (filename: string, text: string): Promise<string> => {
  const init = await api("POST", "/v1/doc/init", { corpusId: cid, filename, contentType: "text/markdown" });
  expect(init.status).toBe(200);
  const url = String(init.body.uploadUrl);
  const put = await fetch(url.startsWith("http") ? url : k!.url + url, { method: "PUT", headers: { "content-type": "text/markdown" }, body: text });
  expect(put.status).toBe(200);
  const id = init.body.document.id;
  expect((await api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
  await waitFor(async () => (await api("GET", `/v1/doc/${id}`)).body?.status === "READY", `${filename} READY`, 60_000);
  return id;
};
const indexStatus = async () => {
  const r = await api("GET", "/v1/config/model");
  expect(r.status).toBe(200);
  return r.body.index as { state: string; active: string; building?: string; done: number; total: number };
};
const liveChunks = () => sql<{ n: number }>(k!, `SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id
  WHERE c.deleted_at IS NULL AND d.deleted_at IS NULL AND c.generation = d.generation`)[0]!.n;
/** Asks over HTTP; returns the answer text and the documents it cites. */
const ask = async (question: string) => {
  const r = await api("GET", `/v1/post/q?${new URLSearchParams({ sessionId: sid, body: question })}`);
  expect(r.status).toBe(200);
  const att = await api("GET", `/v1/post/attachment/${r.body.answer.id}`);
  return { body: String(r.body.answer.body), docs: (att.body as { docId: string }[]).map((a) => a.docId) };
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "kbqa-reembed-e2e-"));
  modelsDir = join(dataDir, "models");
  k = await startKbqa({ dataDir, modelsDir });
  org = await k.org();
  cid = await corpus(org);
  sid = await session(org, [cid]);
  for (const [name, text] of Object.entries(DOCS)) {
    docIds[name] = await ingest(k, org, cid, name, text, "text/markdown", { chunk: { combine_text_under_n_chars: 0 } });
  }
});
afterAll(async () => {
  await k?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("re-embedding when the embedding model changes", () => {
  test("first run: the built-in embedder's table is recorded as active", async () => {
    expect(await indexStatus()).toEqual({ state: "ready", active: BUILTIN, done: 0, total: 0 });
    expect(liveChunks()).toBeGreaterThanOrEqual(12);
  });

  test("restart with an ONNX model: answers from the old vectors while rebuilding, progress, then the switch", async () => {
    await k!.stop();
    await writeTinyOnnx(modelsDir, TINY, vocab, 16);
    // One chunk per batch with a pause: the rebuild lasts seconds, long enough to watch.
    k = await startKbqa({ dataDir, modelsDir, flags: ["--reembed-batch", "1", "--reembed-pause-ms", "600"] });
    const total = liveChunks();

    const first = await indexStatus();
    expect(first).toMatchObject({ state: "rebuilding", active: BUILTIN, building: TINY, total });
    expect(first.done).toBeLessThan(total);

    const during = await ask("What does the Kestrel lander carry?");
    expect(during.body).toContain("drill");
    expect(during.docs).toContain(docIds["kestrel.md"]!);
    // A document ingested mid-rebuild reaches both tables: answerable now and after the switch.
    const late = await ingestNow("comet.md", LATE);
    const lateAnswer = await ask("How often does Halley return?");
    expect(lateAnswer.docs).toContain(late);
    const still = await indexStatus();
    expect(still).toMatchObject({ state: "rebuilding", active: BUILTIN, building: TINY });
    expect(still.done).toBeGreaterThan(0);

    const done = await waitFor(async () => {
      const s = await indexStatus();
      return s.state === "ready" ? s : undefined;
    }, "rebuild complete", 90_000);
    expect(done).toEqual({ state: "ready", active: TINY, done: liveChunks(), total: liveChunks() });
    expect(k!.stderr()).toContain("vector index switched to the new embedding model");

    const after = await ask("What does the Kestrel lander carry?");
    expect(after.body).toContain("drill");
    expect(after.docs).toContain(docIds["kestrel.md"]!);
    expect((await ask("How often does Halley return?")).docs).toContain(late);
  }, 150_000);

  test("after the switch: state recorded, the new table holds one ONNX vector per live chunk, found by vector search", async () => {
    const live = liveChunks();
    const rows = sql<{ active_embedder: string; active_table: string; building_table: string | null }>(k!, "SELECT * FROM index_state");
    expect(rows.map((r) => [r.active_embedder, r.active_table, r.building_table])).toEqual([[TINY, tableNameFor(TINY), null]]);
    const chunk = sql<{ id: string; body: string }>(k!, "SELECT c.id, c.body FROM chunks c WHERE c.document_id = ? AND c.body LIKE '%drill%'", docIds["kestrel.md"]!)[0]!;
    await k!.stop();
    k = undefined;

    const lance = join(dataDir, "lance");
    const models = await createModelRegistry({ modelsDir, ...MODELS_DEFAULTS });
    const ix = await openLanceIndex(lance, TINY, 16);
    try {
      expect(ix.dims).toBe(16);
      expect(await ix.count()).toBe(live);
      const [v] = await models.embedder(TINY).embed([chunk.body], "query");
      const hits = await ix.searchVector(org.orgId, [cid], v!, 1);
      expect(hits.map((h) => h.chunkId)).toEqual([chunk.id]);
      expect(hits[0]!.score).toBeCloseTo(1, 4);
    } finally {
      await ix.close();
      await models.close();
    }
    // The old table is dropped after a grace period, or at the next start if the server stopped first.
    const left = (await listLanceTables(lance)).map((t) => t.name);
    if (left.includes(tableNameFor(BUILTIN))) {
      k = await startKbqa({ dataDir, modelsDir });
      expect(await indexStatus()).toMatchObject({ state: "ready", active: TINY });
      expect((await listLanceTables(lance)).map((t) => t.name)).toEqual([tableNameFor(TINY)]);
    }
  }, 60_000);
});
