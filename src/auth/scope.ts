/**
 * Which scope entry a request needs. The domain is the first path segment after /v1/; the
 * action follows the method, except for the rows of SCOPE_EXCEPTIONS, which the spec names.
 */
export const DOMAINS = ["config", "auth", "session", "doc", "corpus", "post", "usage", "agent", "chunk"] as const;
export const ACTIONS = ["create", "read", "update", "delete"] as const;
export type Domain = (typeof DOMAINS)[number];
export type Action = (typeof ACTIONS)[number];

export const SCOPE_RE = new RegExp(`^(${DOMAINS.join("|")}):(${ACTIONS.join("|")})$`);
export const isScopeEntry = (s: string): boolean => SCOPE_RE.test(s);

export const ACTION_OF_METHOD: Record<string, Action> = {
  GET: "read",
  HEAD: "read",
  POST: "create",
  PUT: "update",
  PATCH: "update",
  DELETE: "delete",
};

interface Exception {
  method: string;
  path: RegExp;
  /** Any one of these entries is enough. */
  anyOf: string[];
}

export const SCOPE_EXCEPTIONS: Exception[] = [
  // Sending a query creates posts but is a read for a question widget: either entry serves.
  { method: "GET", path: /^\/v1\/post\/q\/?$/, anyOf: ["post:read", "post:create"] },
  { method: "POST", path: /^\/v1\/post\/?$/, anyOf: ["post:read", "post:create"] },
  { method: "PUT", path: /^\/v1\/doc\/[^/]+\/init\/?$/, anyOf: ["doc:update"] },
  // Commit ends an upload begun by init (doc:create) or by new content (PUT init, doc:update):
  // with create alone, a token allowed to replace content could not finish a replacement.
  { method: "POST", path: /^\/v1\/doc\/[^/]+\/commit\/?$/, anyOf: ["doc:create", "doc:update"] },
  // The widget family has no scope name (rule 9), but a scope must still cover the request
  // (rule 5): each path needs the scope of the operation it stands for.
  { method: "POST", path: /^\/v1\/webhook\/widget\/init\/?$/, anyOf: ["session:create"] },
  { method: "POST", path: /^\/v1\/webhook\/widget\/q\/?$/, anyOf: ["post:read", "post:create"] },
  { method: "GET", path: /^\/v1\/webhook\/widget\/q\/?$/, anyOf: ["post:read", "post:create"] },
  { method: "GET", path: /^\/v1\/webhook\/widget\/?$/, anyOf: ["post:read"] },
  { method: "GET", path: /^\/v1\/webhook\/widget\/attachment\/[^/]+\/?$/, anyOf: ["post:read"] },
  // Sends a query; opening a session on the way also needs session:create (widget/routes.ts).
  { method: "POST", path: /^\/webhook\/v1\/widget\/[^/]+\/?$/, anyOf: ["post:read", "post:create"] },
];

/** The scope entries, any one of which lets the request through; null when the path is outside any domain. */
export function requiredScope(method: string, path: string): string[] | null {
  // HEAD is a GET without the body: the same entry covers it.
  const asMethod = method === "HEAD" ? "GET" : method;
  for (const e of SCOPE_EXCEPTIONS) if (e.method === asMethod && e.path.test(path)) return e.anyOf;
  const m = /^\/v1\/([^/]+)/.exec(path);
  const action = ACTION_OF_METHOD[method];
  if (!m || !action) return null;
  return [`${m[1]}:${action}`];
}

/** An empty scope means unrestricted (JWT only: access tokens always carry one). */
export function scopeCovers(scope: string[], method: string, path: string): boolean {
  if (scope.length === 0) return true;
  const need = requiredScope(method, path);
  if (!need) return false;
  return need.some((n) => scope.includes(n));
}
