import type { Db } from "../store/db.ts";
import { AppError } from "../http/errors.ts";
import { fromJson } from "../store/db.ts";
import type { Principal } from "./jwt.ts";
import type { PurgeRule } from "../store/purge.ts";

export interface AccessToken {
  token: string;
  scope: string[];
  createdAt: number;
  expiresAt: number;
}

const sha256 = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

/** 32 random bytes, base64url: 256 bits, opaque to the client. */
function mint(): string {
  return "kbqa_" + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export interface NewToken {
  scope: string[];
  ttl: number;
  userId: string;
  email?: string;
  name?: string;
  issuer?: string;
  /** Minted for another user than its creator: sees only that user's sessions (Principal.confined). */
  confined: boolean;
}

export function createAccessToken(db: Db, orgId: string, t: NewToken, now: number): AccessToken {
  const token = mint();
  const expiresAt = now + t.ttl * 1000;
  db.query(
    `INSERT INTO access_tokens (token_hash, org_id, user_id, email, name, issuer, scope, created_at, expires_at, confined)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(sha256(token), orgId, t.userId, t.email ?? null, t.name ?? null, t.issuer ?? null, JSON.stringify(t.scope), now, expiresAt, t.confined ? 1 : 0);
  return { token, scope: t.scope, createdAt: now, expiresAt };
}

/** Revokes a token of this organization; false when there is none (or it is another's). */
export function revokeAccessToken(db: Db, orgId: string, token: string, now: number): boolean {
  return (
    db.query("UPDATE access_tokens SET revoked_at = ? WHERE token_hash = ? AND org_id = ? AND revoked_at IS NULL").run(now, sha256(token), orgId)
      .changes > 0
  );
}

interface Row {
  org_id: string;
  user_id: string;
  email: string | null;
  name: string | null;
  scope: string;
  expires_at: number;
  revoked_at: number | null;
  confined: number;
}

export function verifyAccessToken(db: Db, token: string, now: number): Principal {
  const r = db.query<Row, [string]>("SELECT * FROM access_tokens WHERE token_hash = ?").get(sha256(token));
  if (!r || r.revoked_at != null) throw new AppError("FORBIDDEN", "Invalid access token");
  if (r.expires_at <= now) throw new AppError("FORBIDDEN", "Access token expired");
  return {
    kind: "token",
    orgId: r.org_id,
    userId: r.user_id,
    email: r.email ?? undefined,
    name: r.name ?? undefined,
    scope: fromJson<string[]>(r.scope, []),
    ...(r.confined ? { confined: true } : {}),
  };
}

/**
 * A token row goes once the token has expired (and the margin passed), revoked or not. A revoked
 * one stays until then, although a missing row is refused too: it is the record that this token
 * was revoked, and the refusal of a token that has not expired should not depend on a row being
 * absent (keeping it costs little: --max-token-ttl bounds it). An expired one is refused whatever
 * its row says; without the row the refusal says "Invalid access token" instead of "Access token
 * expired", and revoking it answers 404 instead of 200: the retention margin is how long those
 * answers stay as they were.
 */
export const EXPIRED_TOKENS: PurgeRule = {
  table: "access_tokens",
  spent: "expires_at <= $cutoff",
};
