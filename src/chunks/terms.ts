import type { Db } from "../store/db.ts";

/**
 * Metadata search terms. A chunk's metadata is flattened by SQLite's json_tree into terms, kept
 * in chunk_bits by triggers (bits-sql.ts), and a query fragment is flattened by the very
 * same SQL, so both sides agree on path quoting and number spelling. Term kinds:
 *   t:<path>\x01<object|array>   a container at a path made of object keys only
 *   p:<path>\x01<value>          a scalar at such a path
 *   e:<path>\x01<value>          a scalar element of the array at such a path
 *   d:<path>\x01<value>          a scalar somewhere inside the array at such a path (deeper)
 * A fragment contained in the metadata has all its terms among the metadata's terms. For a
 * fragment without d: terms, keys with "[" or numbers other than safe integers the converse
 * holds too, so such a match is exact in SQL; otherwise the terms only narrow the candidates
 * and containment.ts decides.
 */
const VALUE = `CASE t.type WHEN 'text' THEN 's' || t.atom
    WHEN 'integer' THEN 'n' || t.atom
    WHEN 'real' THEN 'n' || CASE WHEN t.atom = CAST(t.atom AS INTEGER) THEN CAST(CAST(t.atom AS INTEGER) AS TEXT) ELSE CAST(t.atom AS TEXT) END
    WHEN 'true' THEN 'T' WHEN 'false' THEN 'F' ELSE 'Z' END`;

/** The term of json_tree row `t`: '*' for the root (every live chunk has it), NULL for containers below an array. */
export const TERM = `CASE
    WHEN t.parent IS NULL THEN '*'
    WHEN t.type IN ('object', 'array') THEN CASE WHEN instr(t.fullkey, '[') = 0 THEN 't:' || t.fullkey || char(1) || t.type END
    WHEN instr(t.fullkey, '[') = 0 THEN 'p:' || t.fullkey || char(1) || ${VALUE}
    WHEN instr(t.path, '[') = 0 THEN 'e:' || t.path || char(1) || ${VALUE}
    ELSE 'd:' || substr(t.fullkey, 1, instr(t.fullkey, '[') - 1) || char(1) || ${VALUE}
  END`;

/** json_tree over a metadata column, tolerating a malformed value (indexed as {}). */
export const treeOf = (col: string) => `json_tree(CASE WHEN json_valid(${col}) THEN ${col} ELSE '{}' END) t`;

/** The term every undeleted chunk carries: counts of it are the plain listing's totals. */
export const ALL = "*";

export interface FragmentTerms {
  terms: string[];
  /** True when matching every term is the same as containment (no JS check needed). */
  exact: boolean;
}

/** Terms of a query fragment (a JSON object), computed by SQLite like the stored ones. */
export function fragmentTerms(db: Db, fragment: Record<string, unknown>): FragmentTerms {
  const rows = db
    .query<{ term: string }, [string]>(`SELECT DISTINCT ${TERM} AS term FROM json_tree(?) t WHERE term IS NOT NULL`)
    .all(JSON.stringify(fragment));
  const all = rows.map((r) => r.term).filter((t) => t !== ALL);
  // A container term is implied by any term below it; dropping it saves a probe per candidate.
  const paths = all.filter((t) => !t.startsWith("t:")).map((t) => t.slice(2, t.indexOf("\x01")));
  const terms = all.filter((t) => {
    if (!t.startsWith("t:")) return true;
    const p = t.slice(2, t.indexOf("\x01"));
    return !paths.some((q) => q === p || q.startsWith(p + ".") || q.startsWith(p + "["));
  });
  return { terms, exact: !terms.some((t) => t.startsWith("d:")) && !spelledLoosely(fragment) };
}

/**
 * Parts of a fragment its terms do not pin down exactly, so containment.ts must confirm: a key
 * containing "[" would be taken for an array step by the path tests above, and a number that is
 * not a safe integer is spelled by SQLite with 15 significant digits (0.3 and
 * 0.30000000000000004 share a term, so do 1e21 and 1.0000000000000001e21). Safe integers and
 * strings, the usual values, are spelled exactly and stay exact.
 */
function spelledLoosely(v: unknown): boolean {
  if (typeof v === "number") return !Number.isSafeInteger(v);
  if (Array.isArray(v)) return v.some(spelledLoosely);
  if (v && typeof v === "object") return Object.entries(v).some(([k, x]) => k.includes("[") || spelledLoosely(x));
  return false;
}
