/**
 * JSON containment, the rule behind metadata search: every key of an object fragment must be
 * present with a contained value, every element of an array fragment must be contained in some
 * element of the stored array (order and extra elements do not matter), scalars must be equal.
 */
export function contains(stored: unknown, fragment: unknown): boolean {
  if (Array.isArray(fragment)) {
    return Array.isArray(stored) && fragment.every((f) => stored.some((s) => contains(s, f)));
  }
  if (fragment !== null && typeof fragment === "object") {
    if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return false;
    const s = stored as Record<string, unknown>;
    return Object.entries(fragment).every(([k, f]) => Object.hasOwn(s, k) && contains(s[k], f));
  }
  return stored === fragment;
}
