import type { Db } from "../store/db.ts";
import { offsetOf } from "../http/paging.ts";
import { bytesOf, EMPTY, intersect, ofSeq, readTerm, rowidsOf, termSize, union, wordCount, type Words } from "./bits.ts";
import { indexCache, type IndexCache } from "./index-cache.ts";
import { ALL } from "./terms.ts";
import { liveCorpus } from "../corpus/drops.ts";

/**
 * The chunk search engine. Order: doc_seq (commit order of the document's chunk set, see
 * migrations.ts), then first page, then id. The bitmap index (bits.ts) gives the matching
 * chunks per chunk set as words; counts are popcounts, liveness is checked once per chunk set
 * against documents, and the page is read from the few chunk sets it spans. Deep pages and
 * exact totals therefore cost one pass over ~1/64 of the matching chunks, never a per-row probe.
 * Term words and live sets come from index-cache.ts while the organization's chunks are unchanged, so a
 * repeated or paged query does no index reads at all and allocates in proportion to the words,
 * not the chunks.
 */
export interface Filter {
  corpusId?: string;
  documentId?: string;
  hash?: string;
  page?: number;
  match?: Match;
}

/** Metadata match: every set of terms must have one member present; `test` is the exact rule. */
export interface Match {
  conds: string[][];
  /** Names the fragment(s), for caching the confirmed hits of an inexact match. */
  key: string;
  exact: boolean;
  test: (metadata: unknown) => boolean;
}

export interface ChunkRow {
  rowid: number;
  id: string;
  document_id: string;
  corpus_id: string;
  pages: string;
  hash: string;
  metadata: string;
  body?: string | null;
}

type P = Record<string, string | number>;
interface Opts {
  pageSize: number;
  pageIndex: number;
  body: boolean;
}

/** Matching words grouped by chunk set: group g is words [from[g], to[g]) of x, holding n[g] chunks of set s[g]. */
interface Groups {
  x: Words;
  s: number[];
  n: number[];
  from: number[];
  to: number[];
}

// The corpus too: a deleted corpus' documents are marked deleted in the background (corpus/drops.ts).
const LIVE = `d.org_id = $org AND d.deleted_at IS NULL AND d.status = 'READY' AND d.generation = k.generation AND ${liveCorpus("d")}`;

/** A term's words are cached whole up to this many; a larger one is read only for the chunk sets still in play. */
const WHOLE = 1 << 16;
/** Candidates below this many chunk sets are checked for liveness one by one rather than against the organization's list. */
const PROBE = 64;

export function searchChunks(db: Db, orgId: string, f: Filter, o: Opts): { total: number; rows: ChunkRow[] } {
  const orgKey = db.query<{ k: number }, [string]>("SELECT rowid AS k FROM orgs WHERE id = ?").get(orgId)?.k ?? 0;
  if (f.hash !== undefined) return byHash(db, orgId, orgKey, f, o);
  const cache = indexCache(db, orgKey);
  const cols = `c.rowid, c.id, c.document_id, c.corpus_id, c.pages, c.hash, c.metadata${o.body ? ", c.body" : ""}`;

  // A document filter pins the one live chunk set up front.
  let seq: number | undefined;
  if (f.documentId !== undefined) {
    const params: P = { org: orgId, doc: f.documentId, ...(f.corpusId !== undefined ? { corpus: f.corpusId } : {}) };
    const r = db
      .query<{ s: number }, P>(
        `SELECT k.doc_seq AS s FROM documents d JOIN chunk_sets k ON k.document_id = d.id AND k.generation = d.generation
         WHERE d.id = $doc AND ${LIVE} ${f.corpusId !== undefined ? "AND d.corpus_id = $corpus" : ""}`,
      )
      .get(params);
    if (!r) return { total: 0, rows: [] };
    seq = r.s;
  }
  // The page filter is a term of its own ('g:<page>', bits-sql.ts); with no term at all, every live chunk ('*').
  const conds = [...(f.match?.conds ?? []), ...(f.page !== undefined ? [[`g:${f.page}`]] : [])];
  const everything = conds.length === 0;
  const corpus = seq === undefined ? f.corpusId : undefined;
  const start = offsetOf(o);
  const byRowids = (ids: number[], what: string, tail: string) =>
    db.query<ChunkRow, { ids: string }>(
      `SELECT ${what} FROM json_each($ids) j CROSS JOIN chunks c ON c.rowid = j.value
       WHERE c.deleted_at IS NULL ORDER BY c.doc_seq, c.first_page, c.id ${tail}`,
    ).all({ ids: JSON.stringify(ids) });

  if (f.match && !f.match.exact) {
    // Inexact fragment: the terms narrowed the candidates; containment decides, in order. The
    // confirmed hits are kept, so paging through them tests each candidate once per state.
    const test = f.match.test;
    const hits = cache.get(`h\0${f.match.key}\0${f.page}\0${seq}\0${corpus}`, () => {
      const g = groups(db, cache, orgId, orgKey, everything ? [[ALL]] : conds, seq, corpus);
      const ids = byRowids(rowids(g, 0, g.s.length), "c.rowid, c.metadata", "")
        .filter((r) => test(parse(r.metadata)))
        .map((r) => r.rowid);
      return { value: Float64Array.from(ids), bytes: ids.length * 8 };
    });
    return { total: hits.length, rows: fetchPage(db, cols, hits.subarray(start, start + o.pageSize)) };
  }

  // The grouped match is kept too: paging through it, or asking again, redoes no merge.
  const g = cache.get(`g\0${JSON.stringify(conds)}\0${seq}\0${corpus}`, () => {
    const value = groups(db, cache, orgId, orgKey, everything ? [[ALL]] : conds, seq, corpus);
    return { value, bytes: bytesOf(value.x) + value.s.length * 32 };
  });
  let total = 0;
  for (const n of g.n) total += n;
  // The chunk sets the page spans, and how many of the first one's matches come before it.
  let first = -1;
  let last = -1;
  let before = 0;
  let inner = 0;
  for (let i = 0; i < g.s.length; i++) {
    if (before + g.n[i]! <= start) {
      before += g.n[i]!;
      continue;
    }
    if (first < 0) (first = i), (inner = start - before);
    last = i;
    before += g.n[i]!;
    if (before >= start + o.pageSize) break;
  }
  if (first < 0) return { total, rows: [] };
  const tail = `LIMIT ${o.pageSize} OFFSET ${inner}`;
  // Without a term every live chunk of the sets qualifies: the reading-order index serves the page.
  const rows = !everything
    ? byRowids(rowids(g, first, last + 1), cols, tail)
    : db.query<ChunkRow, P>(
        `SELECT ${cols} FROM chunks c WHERE c.org_id = $org AND c.deleted_at IS NULL
         AND c.doc_seq IN (${g.s.slice(first, last + 1).join(",")}) ORDER BY c.doc_seq, c.first_page, c.id ${tail}`,
      ).all({ org: orgId });
  return { total, rows };
}

/**
 * The words of the chunks that carry, for every set of terms, at least one member (sets of
 * several terms are key/value's typed alternatives), in live chunk sets, grouped by set. Sets
 * are intersected smallest first; a term too large to cache whole is read only for the chunk
 * sets still in play.
 */
function groups(db: Db, cache: IndexCache, orgId: string, orgKey: number, conds: string[][], seq: number | undefined, corpus: string | undefined): Groups {
  const key = (t: string) => `w\0${t}`;
  const sized = conds.map((terms) => ({
    terms,
    n: terms.reduce((a, t) => a + (cache.peek<Words>(key(t))?.n ?? termSize(db, orgKey, t)), 0),
  }));
  sized.sort((a, b) => a.n - b.n);
  let x: Words | undefined;
  for (const set of sized) {
    if (set.n === 0 || x?.n === 0) return groupsOf(EMPTY, () => true);
    let y = EMPTY;
    for (const t of set.terms) {
      const n = cache.peek<Words>(key(t))?.n ?? termSize(db, orgKey, t);
      let w: Words;
      if (seq !== undefined && !cache.peek(key(t))) w = readTerm(db, orgKey, t, { seq });
      else if (n <= WHOLE || x === undefined) w = cache.get(key(t), () => { const v = readTerm(db, orgKey, t); return { value: v, bytes: bytesOf(v) }; });
      else w = readTerm(db, orgKey, t, { seqs: seqsOf(x) });
      y = set.terms.length === 1 ? w : union(y, w);
    }
    if (seq !== undefined) y = ofSeq(y, seq);
    x = x === undefined ? y : intersect(x, y);
  }
  x ??= EMPTY;
  if (seq !== undefined) return groupsOf(x, () => true);
  // Liveness: few candidate sets are probed, more are checked against the organization's list.
  const cands = seqsOf(x);
  const liveMap = cache.peek<Map<number, string>>(`l\0${orgId}`);
  if (!liveMap && cands.length < PROBE) {
    const ok = probeLive(db, orgId, cands, corpus);
    return groupsOf(x, (s) => ok.has(s));
  }
  const m = liveMap ?? cache.get(`l\0${orgId}`, () => liveSets(db, orgId));
  return groupsOf(x, corpus === undefined ? (s) => m.has(s) : (s) => m.get(s) === corpus);
}

function groupsOf(x: Words, keep: (s: number) => boolean): Groups {
  const g: Groups = { x, s: [], n: [], from: [], to: [] };
  let i = 0;
  while (i < x.n) {
    const s = x.s[i]!;
    let j = i;
    let n = 0;
    while (j < x.n && x.s[j] === s) n += wordCount(x, j++);
    if (keep(s)) g.s.push(s), g.n.push(n), g.from.push(i), g.to.push(j);
    i = j;
  }
  return g;
}

function seqsOf(x: Words): number[] {
  const out: number[] = [];
  for (let i = 0; i < x.n; i++) if (i === 0 || x.s[i] !== x.s[i - 1]) out.push(x.s[i]!);
  return out;
}

const rowids = (g: Groups, a: number, b: number) => {
  const out: number[] = [];
  for (let i = a; i < b; i++) rowidsOf(g.x, g.from[i]!, g.to[i]!, out);
  return out;
};

/** The organization's live chunk sets (the document's current one, READY and undeleted, its corpus live) with their corpus. */
function liveSets(db: Db, orgId: string): { value: Map<number, string>; bytes: number } {
  // The corpus check (corpus/drops.ts liveCorpus) against the organization's few deleted corpora, rather than a lookup per document.
  const deleted = new Set(
    db.query<[string], [string]>("SELECT id FROM corpora WHERE org_id = ? AND deleted_at IS NOT NULL").values(orgId).map((r) => r[0]),
  );
  const rows = (db
    .query<[number, string], [string]>(
      `SELECT k.doc_seq, d.corpus_id FROM documents d JOIN chunk_sets k ON k.document_id = d.id AND k.generation = d.generation
       WHERE d.org_id = ? AND d.deleted_at IS NULL AND d.status = 'READY'`,
    )
    .values(orgId) as [number, string][]).filter((r) => !deleted.has(r[1]));
  return { value: new Map(rows), bytes: rows.length * 64 };
}

/** Which of these chunk sets are live (and in the corpus). */
function probeLive(db: Db, orgId: string, seqs: number[], corpusId: string | undefined): Set<number> {
  if (seqs.length === 0) return new Set();
  return new Set(
    db
      .query<{ s: number }, P>(
        `SELECT k.doc_seq AS s FROM json_each($seqs) j CROSS JOIN chunk_sets k ON k.doc_seq = j.value
         JOIN documents d ON d.id = k.document_id WHERE ${LIVE} ${corpusId !== undefined ? "AND d.corpus_id = $corpus" : ""}`,
      )
      .all({ org: orgId, seqs: JSON.stringify(seqs), ...(corpusId !== undefined ? { corpus: corpusId } : {}) })
      .map((r) => r.s),
  );
}

function fetchPage(db: Db, cols: string, page: ArrayLike<number>): ChunkRow[] {
  if (page.length === 0) return [];
  return db
    .query<ChunkRow, []>(`SELECT ${cols} FROM chunks c WHERE c.rowid IN (${Array.from(page).join(",")}) ORDER BY c.doc_seq, c.first_page, c.id`)
    .all();
}

/**
 * The candidates of a hash search. INDEXED BY: without statistics (kbqa never runs ANALYZE) the
 * planner preferred chunks_reading, which yields the ORDER BY without a sort, and so walked
 * every live chunk of the organization to find the few with the hash (340 ms at 500,000 chunks,
 * event loop held). The hash index finds them directly; sorting a handful costs nothing.
 */
export function hashCandidatesSql(preds: string[], inexact: boolean): string {
  return `SELECT c.rowid, c.doc_seq AS s${inexact ? ", c.metadata" : ""} FROM chunks c INDEXED BY chunks_hash
       WHERE c.org_id = $org AND c.deleted_at IS NULL ${preds.map((p) => `AND ${p}`).join(" ")}
       ORDER BY c.doc_seq, c.first_page, c.id`;
}

/** Term sets of a metadata filter a hash search checks in SQL; containment checks the rest. */
const HASH_TERM_SETS = 64;

/** hash filter: the few chunks with that hash come from its index, each probed once per term set. */
function byHash(db: Db, orgId: string, orgKey: number, f: Filter, o: Opts): { total: number; rows: ChunkRow[] } {
  const params: P = { org: orgId, ok: orgKey };
  const preds: string[] = [];
  if (f.hash !== undefined) preds.push("c.hash = $hash"), (params.hash = f.hash);
  if (f.page !== undefined) {
    preds.push("c.first_page BETWEEN 1 AND $page AND EXISTS (SELECT 1 FROM json_each(c.pages) WHERE value = $page)");
    params.page = f.page;
  }
  if (f.documentId !== undefined) preds.push("c.document_id = $doc"), (params.doc = f.documentId);
  // The first term sets narrow in SQL; past them containment decides (below): a condition per
  // term of a long fragment made the expression deeper than SQLite allows (1,000), a 500.
  const sets = f.match?.conds ?? [];
  const narrowing = sets.slice(0, HASH_TERM_SETS);
  narrowing.forEach((set, i) => {
    const names = set.map((term, j) => ((params[`t${i}_${j}`] = term), `$t${i}_${j}`));
    preds.push(`EXISTS (SELECT 1 FROM chunk_bits x WHERE x.org_key = $ok AND x.term IN (${names.join(",")})
      AND x.doc_seq = c.doc_seq AND x.word = c.rowid >> 6 AND (x.bits >> (c.rowid & 63)) & 1)`);
  });
  const inexact = f.match !== undefined && (!f.match.exact || narrowing.length < sets.length);
  const cands = db.query<{ rowid: number; s: number; metadata: string }, P>(hashCandidatesSql(preds, inexact)).all(params);
  const ok = probeLive(db, orgId, [...new Set(cands.map((c) => c.s))], f.corpusId);
  const test = f.match?.test;
  const hits = cands.filter((c) => ok.has(c.s) && (!inexact || test!(parse(c.metadata))));
  const start = offsetOf(o);
  const cols = `c.rowid, c.id, c.document_id, c.corpus_id, c.pages, c.hash, c.metadata${o.body ? ", c.body" : ""}`;
  return { total: hits.length, rows: fetchPage(db, cols, hits.slice(start, start + o.pageSize).map((c) => c.rowid)) };
}

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
};
