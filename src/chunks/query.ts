import type { Db } from "../store/db.ts";
import { matchWords, rowidsOf, termWords, wordCount, type Word } from "./bits.ts";
import { ALL } from "./terms.ts";

/**
 * The chunk search engine. Order: doc_seq (commit order of the document's chunk set, see
 * migrations.ts), then first page, then id. The bitmap index (bits.ts) gives the matching
 * chunks per document as words; counts are popcounts, liveness is checked once per document
 * against documents, and the page is read from the few documents it spans. Deep pages and exact
 * totals therefore cost one pass over ~1/64 of the matching chunks, never a per-row probe.
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
interface Group {
  s: number;
  n: number;
  words: Word[];
}

const LIVE = "d.org_id = $org AND d.deleted_at IS NULL AND d.status = 'READY' AND d.generation = k.generation";

export function searchChunks(db: Db, orgId: string, f: Filter, o: Opts): { total: number; rows: ChunkRow[] } {
  const orgKey = db.query<{ k: number }, [string]>("SELECT rowid AS k FROM orgs WHERE id = ?").get(orgId)?.k ?? 0;
  if (f.hash !== undefined) return byHash(db, orgId, orgKey, f, o);
  const cols = `c.rowid, c.id, c.document_id, c.corpus_id, c.pages, c.hash, c.metadata${o.body ? ", c.body" : ""}`;
  const params: P = { org: orgId };

  // A document filter pins the one live chunk set up front.
  let seq: number | undefined;
  if (f.documentId !== undefined) {
    params.doc = f.documentId;
    const r = db
      .query<{ s: number }, P>(
        `SELECT k.doc_seq AS s FROM documents d JOIN chunk_sets k ON k.document_id = d.id AND k.generation = d.generation
         WHERE d.id = $doc AND ${LIVE} ${f.corpusId !== undefined ? "AND d.corpus_id = $corpus" : ""}`,
      )
      .get(f.corpusId !== undefined ? { ...params, corpus: f.corpusId } : params);
    if (!r) return { total: 0, rows: [] };
    seq = r.s;
  }
  // The page filter is a term of its own ('g:<page>', bits-sql.ts); with no term at all, every live chunk ('*').
  const conds = [...(f.match?.conds ?? []), ...(f.page !== undefined ? [[`g:${f.page}`]] : [])];
  const everything = conds.length === 0;
  const corpus = seq === undefined ? f.corpusId : undefined;
  // One term, exact: counted per document in SQL, words read only for the page's documents.
  const one = everything ? ALL : conds.length === 1 && conds[0]!.length === 1 && (!f.match || f.match.exact) ? conds[0]![0]! : undefined;
  const groups =
    one !== undefined
      ? termGroups(db, { org: orgId, ok: orgKey, term: one }, seq, corpus)
      : live(db, params, toGroups(matchWords(db, orgKey, conds, seq)), corpus);
  const start = o.pageIndex * o.pageSize;
  const byRowids = (ids: number[], what: string, tail: string) =>
    db.query<ChunkRow, { ids: string }>(
      `SELECT ${what} FROM json_each($ids) j CROSS JOIN chunks c ON c.rowid = j.value
       WHERE c.deleted_at IS NULL ORDER BY c.doc_seq, c.first_page, c.id ${tail}`,
    ).all({ ids: JSON.stringify(ids) });

  if (!f.match || f.match.exact) {
    const total = groups.reduce((a, g) => a + g.n, 0);
    const page: Group[] = [];
    let before = 0;
    let inner = 0;
    for (const g of groups) {
      if (before + g.n <= start) {
        before += g.n;
        continue;
      }
      if (page.length === 0) inner = start - before;
      page.push(g);
      before += g.n;
      if (before >= start + o.pageSize) break;
    }
    if (page.length === 0) return { total, rows: [] };
    const tail = `LIMIT ${o.pageSize} OFFSET ${inner}`;
    // Without a term every live chunk of the documents qualifies: the reading-order index serves the page.
    if (one !== undefined && !everything) {
      const words = termWords(db, orgKey, one, page.map((g) => g.s));
      for (const g of page) g.words = words.filter((x) => x.s === g.s);
    }
    const rows = !everything
      ? byRowids(rowids(page), cols, tail)
      : db.query<ChunkRow, P>(
          `SELECT ${cols} FROM chunks c WHERE c.org_id = $org AND c.deleted_at IS NULL
           AND c.doc_seq IN (${page.map((g) => g.s).join(",")}) ORDER BY c.doc_seq, c.first_page, c.id ${tail}`,
        ).all({ org: orgId });
    return { total, rows };
  }
  // Inexact fragment: the terms narrowed the candidates; containment decides, in order.
  const test = f.match.test;
  const hits = byRowids(rowids(groups), "c.rowid, c.metadata", "").filter((r) => test(parse(r.metadata)));
  return { total: hits.length, rows: fetchPage(db, cols, hits.slice(start, start + o.pageSize)) };
}

/** Live documents with their count of chunks carrying `term`, from the words' popcounts. */
function termGroups(db: Db, params: P, seq: number | undefined, corpusId: string | undefined): Group[] {
  return db
    .query<{ s: number; n: number }, P>(
      `WITH g AS (SELECT doc_seq AS s, sum(n) AS n FROM chunk_bits WHERE org_key = $ok AND term = $term
         ${seq === undefined ? "" : `AND doc_seq = ${Number(seq)}`} GROUP BY doc_seq)
       SELECT g.s, g.n FROM g CROSS JOIN chunk_sets k ON k.doc_seq = g.s JOIN documents d ON d.id = k.document_id
       WHERE ${LIVE} ${corpusId !== undefined ? "AND d.corpus_id = $corpus" : ""} ORDER BY g.s`,
    )
    .all(corpusId !== undefined ? { ...params, corpus: corpusId } : params)
    .map((g) => ({ ...g, words: [] }));
}

function toGroups(words: Word[]): Group[] {
  const out: Group[] = [];
  for (const x of words) {
    const last = out[out.length - 1];
    if (last && last.s === x.s) {
      last.n += wordCount(x);
      last.words.push(x);
    } else out.push({ s: x.s, n: wordCount(x), words: [x] });
  }
  return out;
}

const rowids = (groups: Group[]) => {
  const out: number[] = [];
  for (const g of groups) for (const x of g.words) rowidsOf(x, out);
  return out;
};

/** The groups whose chunk set is its document's current one, the document READY and undeleted (and in the corpus). */
function live(db: Db, params: P, groups: Group[], corpusId: string | undefined): Group[] {
  if (groups.length === 0) return groups;
  const ok = new Set(
    db
      .query<{ s: number }, P>(
        `SELECT k.doc_seq AS s FROM json_each($seqs) j CROSS JOIN chunk_sets k ON k.doc_seq = j.value
         JOIN documents d ON d.id = k.document_id WHERE ${LIVE} ${corpusId !== undefined ? "AND d.corpus_id = $corpus" : ""}`,
      )
      .all({ org: params.org!, seqs: JSON.stringify(groups.map((g) => g.s)), ...(corpusId !== undefined ? { corpus: corpusId } : {}) })
      .map((r) => r.s),
  );
  return groups.filter((g) => ok.has(g.s));
}

function fetchPage(db: Db, cols: string, page: { rowid: number }[]): ChunkRow[] {
  if (page.length === 0) return [];
  return db
    .query<ChunkRow, []>(`SELECT ${cols} FROM chunks c WHERE c.rowid IN (${page.map((r) => r.rowid).join(",")}) ORDER BY c.doc_seq, c.first_page, c.id`)
    .all();
}

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
  (f.match?.conds ?? []).forEach((set, i) => {
    const names = set.map((term, j) => ((params[`t${i}_${j}`] = term), `$t${i}_${j}`));
    preds.push(`EXISTS (SELECT 1 FROM chunk_bits x WHERE x.org_key = $ok AND x.term IN (${names.join(",")})
      AND x.doc_seq = c.doc_seq AND x.word = c.rowid >> 6 AND (x.bits >> (c.rowid & 63)) & 1)`);
  });
  const inexact = f.match !== undefined && !f.match.exact;
  const cands = db
    .query<{ rowid: number; s: number; metadata: string }, P>(
      `SELECT c.rowid, c.doc_seq AS s${inexact ? ", c.metadata" : ""} FROM chunks c
       WHERE c.org_id = $org AND c.deleted_at IS NULL ${preds.map((p) => `AND ${p}`).join(" ")}
       ORDER BY c.doc_seq, c.first_page, c.id`,
    )
    .all(params);
  const seqs = live(db, params, [...new Set(cands.map((c) => c.s))].map((s) => ({ s, n: 0, words: [] })), f.corpusId);
  const ok = new Set(seqs.map((g) => g.s));
  const test = f.match?.test;
  const hits = cands.filter((c) => ok.has(c.s) && (!inexact || test!(parse(c.metadata))));
  const start = o.pageIndex * o.pageSize;
  const cols = `c.rowid, c.id, c.document_id, c.corpus_id, c.pages, c.hash, c.metadata${o.body ? ", c.body" : ""}`;
  return { total: hits.length, rows: fetchPage(db, cols, hits.slice(start, start + o.pageSize)) };
}

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
};
