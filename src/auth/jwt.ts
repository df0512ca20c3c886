import { decodeProtectedHeader, importSPKI, jwtVerify, type CryptoKey } from "jose";
import type { Db } from "../store/db.ts";
import { AppError } from "../http/errors.ts";
import { displayNameRule, isDisplayName, USER_ID_MAX } from "../http/paging.ts";
import { activeKeyOrg, findActiveKey } from "./keys.ts";

export interface Principal {
  kind: "jwt" | "token";
  orgId: string;
  userId: string;
  email?: string;
  name?: string;
  /** Empty means unrestricted (JWT without a scope claim). */
  scope: string[];
  /**
   * An access token minted for another userId (a widget visitor): it acts as that user, so the
   * sessions of the organization's other users, and their posts and usage, are not its to see.
   */
  confined?: boolean;
}

/** The user whose sessions alone a credential may reach, or undefined for the whole organization. */
export const confinedTo = (p: Pick<Principal, "userId" | "confined">): string | undefined => (p.confined ? p.userId : undefined);

/** Leeway on nbf, iat and exp, seconds. */
export const CLOCK_TOLERANCE_S = 30;

// Importing a PEM costs more than verifying a signature; keep the imported key per (kid, pem).
const imported = new Map<string, CryptoKey>();

async function keyFor(kid: string, pem: string): Promise<CryptoKey> {
  const cacheKey = `${kid}\n${pem}`;
  let k = imported.get(cacheKey);
  if (!k) {
    k = (await importSPKI(pem, "RS256")) as CryptoKey;
    if (imported.size > 1000) imported.clear();
    imported.set(cacheKey, k);
  }
  return k;
}

const deny = (why: string) => new AppError("FORBIDDEN", `Invalid bearer token: ${why}`);

/**
 * An absent or empty claim means unrestricted. A claim made only of blanks is refused: dropping
 * them would leave an empty list, which reads as unrestricted. Unknown entries (an identity
 * provider's "openid") are kept; they match no request, so they grant nothing.
 */
function parseScope(v: unknown): string[] {
  if (v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0)) return [];
  let entries: string[];
  if (typeof v === "string") entries = v.split(/\s+/);
  else if (Array.isArray(v) && v.every((x) => typeof x === "string")) entries = v.map((x) => x.trim());
  else throw deny("scope claim must be an array of strings or a space-separated string");
  entries = entries.filter(Boolean);
  if (entries.length === 0) throw deny("scope claim holds only blank entries");
  return entries;
}

interface Verified {
  principal: Principal;
  kid: string;
  pem: string;
  expMs: number;
  nbfMs: number;
}

/**
 * Tokens whose signature was already checked, keyed by the whole compact token (signature
 * included, so nothing forged can hit). A hit still re-reads the key row, so deactivating or
 * deleting a key refuses its tokens on the very next request, and still checks the time
 * claims. Signature checks dominate the cost of an authenticated request; this removes them
 * from the hot path of a client that reuses its token.
 */
const verified = new Map<string, Verified>();

/**
 * One answer for an unknown or inactive kid and for a signature that does not verify: two
 * different ones told anyone, without any credential, which kids are registered and active.
 */
const KEY_OR_SIGNATURE = "unknown or inactive key, or a signature that does not verify with it";

/**
 * A public key whose private half was thrown away: a token naming an unknown or inactive kid is
 * checked against it, so that refusal costs a signature check like any other. Refused after the
 * lookup alone, it answered 0.4 ms sooner, and that told which kids exist just as two messages did.
 */
const NOBODY_PEM = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA5mC01a+g/3xMkPA19aIb
RqdKi01vCrzyzPX6i9S+vP6J8HHapjnnm/StRCxvnKAOSZVIdDL6Jmr4svh56Hsv
zdl7jlhqqpX8IHHLHPzKcaGqI6HMufUIGduKSN/7Gdy+PDhb7MPmtnaFaowQFTYt
NMbRlGdBfaiWSnbXmjPgQ5nME8Pol8RkWJQcdPOckdEidiTHWzsu00NwMVTyjGCA
pR+J2WO3XeAkWiXMUAOwEexsJ/03N6wItvMr9ppCV1kd3j+DCOYdtwCYv8wwaQRO
bsHIDVGfBtoz+tI2fx/LvtcYqLoJPlkXNq0mm1TmdkXBn7k8I7fyiJo8e1gyjY3E
MwIDAQAB
-----END PUBLIC KEY-----`;
const VERIFIED_MAX = 10_000;

/**
 * RS256 only; kid must name an active registered key; exp and sub required. Answers
 * synchronously for a token verified before (the common case), so the request path stays
 * synchronous: an async step costs Elysia about half of a simple route's throughput.
 */
export function verifyJwt(db: Db, token: string, nowMs: number): Principal | Promise<Principal> {
  const hit = verified.get(token);
  if (!hit) return verifyFresh(db, token, nowMs);
  if (activeKeyOrg(db, hit.kid, hit.pem) !== hit.principal.orgId) {
    // Deactivated, deleted, or its kid now names another key or organization: decide afresh,
    // as for a token never seen (an inactive or unknown key is refused there).
    verified.delete(token);
    return verifyFresh(db, token, nowMs);
  }
  const tol = CLOCK_TOLERANCE_S * 1000;
  if (nowMs >= hit.expMs + tol) throw deny(expired(hit.expMs / 1000));
  if (nowMs < hit.nbfMs - tol) throw deny(notYet(hit.nbfMs / 1000));
  return hit.principal;
}

const at = (seconds: unknown) => (typeof seconds === "number" && Number.isFinite(seconds) && Math.abs(seconds) < 8.64e12 ? new Date(seconds * 1000).toISOString() : String(seconds));
const expired = (exp: unknown) => `it expired at ${at(exp)} (its exp claim)`;
const notYet = (nbf: unknown) => `it is not valid before ${at(nbf)} (its nbf claim)`;

/** jose's refusals, said in words of the token rather than of the library. */
function inWords(e: unknown): string {
  const { code, claim, payload, message } = e as { code?: string; claim?: string; payload?: Record<string, unknown>; message?: string };
  if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED") return KEY_OR_SIGNATURE;
  if (code === "ERR_JWT_EXPIRED") return expired(payload?.exp);
  if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && claim === "nbf" && /timestamp check/.test(message ?? "")) return notYet(payload?.nbf);
  if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && claim) return /missing/.test(message ?? "") ? `the ${claim} claim is required` : `its ${claim} claim is invalid`;
  if (code === "ERR_JWT_INVALID" || code === "ERR_JWS_INVALID") return "not a well-formed JWT";
  return String(message ?? e);
}

async function verifyFresh(db: Db, token: string, nowMs: number): Promise<Principal> {
  let kid: string | undefined;
  let alg: string | undefined;
  try {
    ({ kid, alg } = decodeProtectedHeader(token));
  } catch {
    throw deny("not a compact JWS");
  }
  if (alg !== "RS256") throw deny(`alg must be RS256, got ${typeof alg === "string" ? alg : "none"}`);
  // The header is attacker-controlled JSON: an object or array kid must never reach SQLite as bind parameters.
  if (typeof kid !== "string" || !kid) throw deny("kid header is required and must be a string");
  const key = findActiveKey(db, kid);
  let payload: Record<string, unknown>;
  try {
    // The stand-in key is cached under a name no registered kid has together with its PEM.
    ({ payload } = await jwtVerify(token, key ? await keyFor(kid, key.pem) : await keyFor("\0nobody", NOBODY_PEM), {
      algorithms: ["RS256"],
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ["exp", "sub"],
      currentDate: new Date(nowMs),
    }));
  } catch (e) {
    throw deny(key ? inWords(e) : KEY_OR_SIGNATURE);
  }
  if (!key) throw deny(KEY_OR_SIGNATURE); // a token that verifies with the stand-in key: not possible, but never admitted
  if (typeof payload.iat === "number" && payload.iat * 1000 > nowMs + CLOCK_TOLERANCE_S * 1000) throw deny("iat is in the future");
  if (typeof payload.sub !== "string" || !payload.sub) throw deny("sub must be a non-empty string");
  // The user id everywhere else (access tokens' userId, usage reports' path) follows this rule:
  // a sub outside it made sessions its user could not then ask the usage of.
  if (!isDisplayName(payload.sub, USER_ID_MAX)) throw deny(`sub ${displayNameRule(USER_ID_MAX)}`);
  // SQLite's UTF-8 binding garbles half of a surrogate pair: a sub "ab\ud800cd" was stored as
  // the owner of sessions and posts as "ab𐁣d", "x\udfff" as "". email and name are stored with
  // the access tokens the caller mints. Request bodies have the same rule (body-limit.ts).
  for (const claim of ["sub", "email", "name"] as const) {
    const v = payload[claim];
    if (typeof v === "string" && !v.isWellFormed()) throw deny(`its ${claim} claim holds an unpaired UTF-16 surrogate, which is no character`);
  }
  const principal: Principal = {
    kind: "jwt",
    orgId: key.orgId,
    userId: payload.sub,
    email: typeof payload.email === "string" ? payload.email : undefined,
    name: typeof payload.name === "string" ? payload.name : undefined,
    scope: parseScope(payload.scope),
  };
  if (verified.size >= VERIFIED_MAX) verified.clear();
  verified.set(token, {
    principal,
    kid,
    pem: key.pem,
    expMs: (payload.exp as number) * 1000,
    nbfMs: typeof payload.nbf === "number" ? payload.nbf * 1000 : -Infinity,
  });
  return principal;
}
