/**
 * The crash test's invariants, checked over HTTP (and on disk for the objects) once a restarted
 * server has settled, then the model is brought in line with what the cut operations did.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "./server.ts";
import { sha, type OrgModel } from "./crash-model.ts";
import { call, type Env } from "./crash-http.ts";
import { checkDoc, checkSessions, type Tile } from "./crash-check-doc.ts";
import { checkFindable, checkUsage } from "./crash-check-reports.ts";

async function all(env: Env, o: OrgModel, path: string): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; ; i++) {
    const a = await call(env, o, "GET", `${path}${path.includes("?") ? "&" : "?"}pageSize=100&pageIndex=${i}`);
    if (a.status !== 200) throw new Error(`GET ${path}: ${a.status} ${JSON.stringify(a.body)}`);
    out.push(...a.body.items);
    if (a.body.items.length < 100) return out;
  }
}

const listDocs = async (env: Env, o: OrgModel) =>
  (await Promise.all((await all(env, o, "/v1/corpus/")).map((c) => all(env, o, `/v1/doc/?corpusId=${c.id}`)))).flat();

export async function check(env: Env, orgs: OrgModel[], dataDir: string): Promise<void> {
  const fail = (m: string) => env.failures.push(m);
  for (const o of orgs) {
    // No document stays PROCESSING: everything settles.
    const docs: any[] = await waitFor(async () => {
      const ds = await listDocs(env, o);
      return ds.every((d) => d.status !== "PROCESSING" && d.status !== "PENDING") ? ds : null;
    }, `${o.name}'s documents to settle`, 60_000, 100);
    const listed = new Map(docs.map((d) => [d.id, d]));
    const corpora = new Set((await all(env, o, "/v1/corpus/")).map((c) => c.id));
    for (const c of o.corpora) {
      if (!c.uncertain && c.deleted === corpora.has(c.id)) fail(`${o.name} corpus ${c.id}: deleted=${c.deleted} but listed=${corpora.has(c.id)}`);
      if (c.uncertain) c.deleted = !corpora.has(c.id);
      // A cut corpus delete that happened took the corpus' documents with it, as an acknowledged one does (crash-ops.ts).
      if (c.uncertain && c.deleted) for (const d of o.docs) if (d.corpusId === c.id) d.state = "deleted";
      c.uncertain = false;
    }
    const known = new Set(o.corpora.map((c) => c.id));
    const strays = [...corpora].filter((id) => !known.has(id));
    if (strays.length > o.lostCorpora) fail(`${o.name}: ${strays.length} unknown corpora, ${o.lostCorpora} creations cut`);
    for (const id of strays) o.corpora.push({ id, actor: -1, deleted: false });
    const unknownDocs = docs.filter((d) => !o.docs.some((m) => m.id === d.id));
    if (unknownDocs.length > o.lostInits) fail(`${o.name}: ${unknownDocs.length} unknown documents, ${o.lostInits} inits cut`);
    for (const d of unknownDocs) o.docs.push({ id: d.id, corpusId: d.corpusId, contentType: d.contentType, filename: d.filename, state: "awaiting", candidates: new Map(), ever: new Set(), uncertain: "init" });
    [o.lostCorpora, o.lostInits] = [0, 0];

    const tiles: Tile[] = [];
    for (const m of o.docs) await checkDoc(env, o, m, listed.get(m.id), fail, tiles);
    // Every READY PDF's preview tiles come, interrupted renderings resumed: 30 s for all of them.
    // Except a PDF whose rendering was cut at MAX_PREVIEW_STARTS starts in a row, which the README says is given up, and the log says so.
    const givenUp = (id: string) => env.serverLogs().split("\n").some((l) => l.includes("previews given up") && l.includes(id));
    const missing = async () =>
      (await Promise.all(tiles.map(async (t) => ((await fetch(env.base + t.url.pathname + t.url.search)).status === 200 || givenUp(t.documentId) ? [] : [t.what])))).flat();
    await waitFor(async () => (await missing()).length === 0, "tiles", 30_000, 200).catch(async () => fail(`no preview tiles within 30 s: ${(await missing()).join("; ")}`));

    // Chunks only of READY documents: none of a deleted document or corpus.
    const ready = new Set(docs.filter((d) => d.status === "READY").map((d) => d.id));
    for (const c of await all(env, o, "/v1/chunk/")) if (!ready.has(c.documentId)) fail(`${o.name}: chunk ${c.id} of document ${c.documentId}, which is not a live READY one`);

    await checkUsage(env, o, docs, fail);
    await checkSessions(env, o, ready, listed, fail);
    await checkFindable(env, o, ready, fail, dataDir);
    o.sessions = o.sessions.filter((s) => !o.corpora.find((c) => c.id === s.corpusId)?.deleted);

    // Another organization sees none of it.
    const other = orgs.find((x) => x !== o)!;
    for (const d of docs.slice(0, 10)) {
      const a = await call(env, other, "GET", `/v1/doc/${d.id}`);
      const b = await call(env, other, "GET", `/v1/chunk/q?documentId=${d.id}`);
      if (a.status !== 404 || b.status !== 403) fail(`${other.name} reads ${o.name}'s document ${d.id}: ${a.status}, chunks ${b.status}`);
    }
    for (const id of [...corpora].slice(0, 5)) {
      const a = await call(env, other, "GET", `/v1/corpus/${id}`);
      if (a.status !== 404) fail(`${other.name} reads ${o.name}'s corpus ${id}: ${a.status}`);
    }

    // An object under its final key is whole: bytes some PUT sent, never a torn write.
    for (const m of o.docs) {
      const p = join(dataDir, "blobs", "orgs", o.orgId, "docs", m.id, "original");
      if (existsSync(p) && !m.ever.has(sha(readFileSync(p))) && m.uncertain !== "init") fail(`${o.name} document ${m.id}: the object holds bytes no PUT sent`);
    }
  }
  // What a killed writer left beside the objects is swept at start.
  await waitFor(() => !tempFiles(join(dataDir, "blobs")).length, "the killed server's temporary files to be swept", 20_000, 100)
    .catch(() => fail(`temporary files left: ${tempFiles(join(dataDir, "blobs")).join(", ")}`));
}

function tempFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => /\.tmp-\d+-/.test(f));
}

