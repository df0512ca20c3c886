import type { Db } from "../store/db.ts";
import { ALL } from "./terms.ts";

/**
 * The chunk search engine. Order: doc_seq (commit order of the document's chunk set, see
 * migrations.ts), then first page, then id. Counting is done per document group first, from
 * an index, and liveness is checked once per group against documents; the page is then read
 * from the few groups it spans. Deep pages and exact totals therefore cost one pass over an
 * index, never a per-row join.
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

const termExists = (conds: string[][], params: P, chunkKey: string, seq: string, prefix: string) =>
  conds.map((set, i) => {
    const names = set.map((term, j) => ((params[`${prefix}${i}_${j}`] = term), `$${prefix}${i}_${j}`));
    return `EXISTS (SELECT 1 FROM chunk_terms x${i} WHERE x${i}.org_key = $ok AND x${i}.term IN (${names.join(",")})
      AND x${i}.doc_seq = ${seq} AND x${i}.chunk_key = ${chunkKey})`;
  });

export function searchChunks(db: Db, orgId: string, f: Filter, o: { pageSize: number; pageIndex: number; body: boolean }) {
  const orgKey = db.query<{ k: number }, [string]>("SELECT rowid AS k FROM orgs WHERE id = ?").get(orgId)?.k ?? 0;
  const params: P = { org: orgId, ok: orgKey };
  const rowPreds: string[] = [];
  if (f.hash !== undefined) rowPreds.push("c.hash = $hash"), (params.hash = f.hash);
  if (f.page !== undefined) {
    rowPreds.push("c.first_page BETWEEN 1 AND $page AND EXISTS (SELECT 1 FROM json_each(c.pages) WHERE value = $page)");
    params.page = f.page;
  }
  if (f.documentId !== undefined) rowPreds.push("c.document_id = $doc"), (params.doc = f.documentId);
  if (f.corpusId !== undefined) rowPreds.push("c.corpus_id = $corpus"), (params.corpus = f.corpusId);
  const conds = f.match?.conds ?? [];
  // Rarest term set first: it drives the scans, the others are probed by key.
  const ordered = conds.length > 1 ? orderBySelectivity(db, orgKey, conds) : conds;

  // Group counts: from the per-document term counts for one term set (or none: term '*'),
  // from the term index for several, from chunks when a per-chunk filter (hash, page) applies.
  let groupSql: string;
  const rowLevel = f.hash !== undefined || f.page !== undefined;
  if (!rowLevel && conds.length <= 1) {
    const names = (conds[0] ?? [ALL]).map((term, j) => ((params[`d_${j}`] = term), `$d_${j}`));
    groupSql = `SELECT doc_seq AS s, sum(n) AS n FROM chunk_term_counts WHERE org_key = $ok AND term IN (${names.join(",")})
      GROUP BY doc_seq`;
  } else if (!rowLevel) {
    const [first, ...rest] = ordered;
    const names = first!.map((term, j) => ((params[`d_${j}`] = term), `$d_${j}`));
    groupSql = `SELECT t.doc_seq AS s, count(*) AS n FROM chunk_terms t WHERE t.org_key = $ok AND t.term IN (${names.join(",")})
      ${termExists(rest, params, "t.chunk_key", "t.doc_seq", "g").map((e) => `AND ${e}`).join(" ")} GROUP BY t.doc_seq`;
  } else {
    const preds = [...rowPreds.filter((p) => !p.includes("$corpus")), ...termExists(conds, params, "c.rowid", "c.doc_seq", "c")];
    groupSql = `SELECT c.doc_seq AS s, count(*) AS n FROM chunks c WHERE c.org_id = $org AND c.deleted_at IS NULL
      ${preds.map((p) => `AND ${p}`).join(" ")} GROUP BY c.doc_seq`;
  }
  const docPreds = [f.corpusId !== undefined ? "AND d.corpus_id = $corpus" : "", f.documentId !== undefined ? "AND d.id = $doc" : ""].join(" ");
  const groups = db
    .query<{ s: number; n: number }, P>(
      `WITH g AS (${groupSql})
       SELECT g.s, g.n FROM g JOIN chunk_sets k ON k.doc_seq = g.s
       JOIN documents d ON d.id = k.document_id AND d.org_id = $org AND d.generation = k.generation
       WHERE d.deleted_at IS NULL AND d.status = 'READY' ${docPreds} ORDER BY g.s`,
    )
    .all(params);

  const cols = `c.rowid, c.id, c.document_id, c.corpus_id, c.pages, c.hash, c.metadata${o.body ? ", c.body" : ""}`;
  const [driverSet, ...probed] = ordered;
  const allPreds = [...rowPreds, ...termExists(probed, params, "c.rowid", "c.doc_seq", "p")].map((p) => `AND ${p}`).join(" ");
  // With a metadata match the rarest term set drives the read (few rows per document when
  // selective); without one the reading-order index does.
  const driver = driverSet ? driverSet.map((term, j) => ((params[`r_${j}`] = term), `$r_${j}`)).join(",") : null;
  const from = driver
    ? `FROM chunk_terms r CROSS JOIN chunks c ON c.rowid = r.chunk_key WHERE r.org_key = $ok AND r.term IN (${driver}) AND`
    : "FROM chunks c WHERE";
  const read = (seqs: number[], limit: number, offset: number, what = cols) =>
    seqs.length === 0
      ? []
      : db
          .query<ChunkRow, P>(
            `SELECT ${what} ${from} ${driver ? `r.doc_seq IN (${seqs.join(",")}) AND` : ""}
             c.org_id = $org AND c.deleted_at IS NULL AND c.doc_seq IN (${seqs.join(",")})
             ${allPreds} ORDER BY c.doc_seq, c.first_page, c.id LIMIT ${limit} OFFSET ${offset}`,
          )
          .all(params);

  const start = o.pageIndex * o.pageSize;
  if (!f.match || f.match.exact) {
    const total = groups.reduce((a, g) => a + g.n, 0);
    const seqs: number[] = [];
    let before = 0;
    let inner = 0;
    for (const g of groups) {
      if (before + g.n <= start) {
        before += g.n;
        continue;
      }
      if (seqs.length === 0) inner = start - before;
      seqs.push(g.s);
      before += g.n;
      if (before >= start + o.pageSize) break;
    }
    return { total, rows: read(seqs, o.pageSize, inner) };
  }
  // Inexact fragment: the terms narrowed the candidates; containment decides, in order.
  const test = f.match.test;
  const hits = read(groups.map((g) => g.s), -1, 0, "c.rowid, c.metadata").filter((r) => test(parse(r.metadata)));
  const pageKeys = hits.slice(start, start + o.pageSize).map((r) => r.rowid);
  const rows = pageKeys.length
    ? db.query<ChunkRow, []>(`SELECT ${cols} FROM chunks c WHERE c.rowid IN (${pageKeys.join(",")}) ORDER BY c.doc_seq, c.first_page, c.id`).all()
    : [];
  return { total: hits.length, rows };
}

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
};

/** Rarest term set first (exact sizes from the counts): it drives the scan, the others are probed by key. */
function orderBySelectivity(db: Db, orgKey: number, conds: string[][]): string[][] {
  const size = (set: string[]) =>
    db
      .query<{ n: number | null }, (string | number)[]>(
        `SELECT sum(n) AS n FROM chunk_term_counts WHERE org_key = ? AND term IN (${set.map(() => "?").join(",")})`,
      )
      .get(orgKey, ...set)!.n ?? 0;
  return conds.map((c) => ({ c, n: size(c) })).sort((a, b) => a.n - b.n).map((x) => x.c);
}
