/**
 * Metadata matching for session search. The spec matches "by containment, so extra keys are
 * fine": an object fragment matches when every key it names matches recursively; an array
 * fragment matches when each of its elements is contained in some element of the stored array
 * (order and extra elements do not matter); scalars compare by JSON equality.
 */
export function contains(stored: unknown, fragment: unknown): boolean {
  if (Array.isArray(fragment)) {
    if (!Array.isArray(stored)) return false;
    return fragment.every((f) => stored.some((s) => contains(s, f)));
  }
  if (fragment !== null && typeof fragment === "object") {
    if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return false;
    const s = stored as Record<string, unknown>;
    return Object.entries(fragment as Record<string, unknown>).every(([k, v]) => Object.hasOwn(s, k) && contains(s[k], v));
  }
  return stored === fragment;
}

/**
 * `key`/`value` arrive as query strings, so the value matches a stored string equal to it, or a
 * stored number, boolean or null whose JSON text equals it (`value=3` finds `{"n": 3}` and `{"n": "3"}`).
 */
export function pairMatches(stored: Record<string, unknown>, key: string, value: string): boolean {
  if (!Object.hasOwn(stored, key)) return false;
  const v = stored[key];
  if (typeof v === "string") return v === value;
  if (v === null || typeof v === "number" || typeof v === "boolean") return JSON.stringify(v) === value;
  return false;
}

/**
 * A SQL prefilter that only narrows: for each top-level key of the fragment the stored metadata
 * must have that key (and, for a string value, that exact string). The exact test runs in JS.
 */
export function prefilter(fragment: Record<string, unknown>, column = "s.metadata"): { sql: string[]; args: string[] } {
  const sql: string[] = [];
  const args: string[] = [];
  for (const [k, v] of Object.entries(fragment)) {
    if (typeof v === "string") {
      sql.push(`EXISTS (SELECT 1 FROM json_each(${column}) j WHERE j.key = ? AND j.type = 'text' AND j.value = ?)`);
      args.push(k, v);
    } else {
      sql.push(`EXISTS (SELECT 1 FROM json_each(${column}) j WHERE j.key = ?)`);
      args.push(k);
    }
  }
  return { sql, args };
}
