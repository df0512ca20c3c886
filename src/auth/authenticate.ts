import type { Db } from "../store/db.ts";
import { AppError } from "../http/errors.ts";
import { verifyJwt, type Principal } from "./jwt.ts";
import { verifyAccessToken } from "./tokens.ts";
import { isScopeEntry, requiredScope, scopeCovers } from "./scope.ts";

export interface Credentials {
  authorization?: string | null;
  accessToken?: string | null;
}

/**
 * A bearer token wins when both headers are present (spec, Authentication rule 1), even a
 * malformed one (`Bearer <jwt> extra`, two values joined by a comma): the scheme decides, not the
 * shape, so a proxy appending to the header cannot hand the request to the access token. Another
 * Authorization scheme (Basic for a proxy in front) is not a bearer token: the access token
 * then applies. Synchronous unless a JWT's signature must be checked for the first time.
 */
export function authenticate(db: Db, c: Credentials, now: number): Principal | Promise<Principal> {
  const auth = c.authorization?.trim();
  if (auth && /^Bearer(?![^\s,])/i.test(auth)) {
    const jwt = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    if (!jwt || jwt.includes(",")) throw new AppError("FORBIDDEN", "Authorization header must be 'Bearer <JWT>'");
    return verifyJwt(db, jwt, now);
  }
  const token = c.accessToken?.trim();
  if (token) return verifyAccessToken(db, token, now);
  if (auth) throw new AppError("FORBIDDEN", "Authorization header must be 'Bearer <JWT>' (or send X-Access-Token)");
  throw new AppError("FORBIDDEN", "Missing credential: send Authorization: Bearer <JWT> or X-Access-Token");
}

export function authorize(p: Principal, method: string, path: string): void {
  if (!scopeCovers(p.scope, method, path)) {
    // Only entries rule 6 allows are named: a path outside the nine domains, or a widget path or
    // method the family does not serve (it has no scope name, rule 9), would otherwise be said to
    // need `webhook:read` or `nothing:read`, which no token can carry.
    const need = requiredScope(method, path)?.filter(isScopeEntry);
    const why = need?.length ? ` (it needs ${need.join(" or ")})` : ": no scope entry covers it";
    throw new AppError("FORBIDDEN", `Scope does not cover ${method} ${path}${why}`);
  }
}
