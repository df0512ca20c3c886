import { createPublicKey, type KeyObject } from "node:crypto";
import type { Db } from "../store/db.ts";
import { newId } from "../store/ids.ts";

export interface KeyInfo {
  kid: string;
  orgId: string;
  active: boolean;
}

export class KeyError extends Error {
  /** True when the text is no public key at all (as opposed to a key of the wrong kind or size). */
  constructor(message: string, readonly unreadable = false) {
    super(message);
  }
}

export const MIN_RSA_BITS = 2048;

/** Accepts only RSA public keys of at least 2048 bits; returns the normalised SPKI PEM. */
export function checkPublicKey(pem: string): string {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    // The library's own text (an OpenSSL error code) tells the operator nothing.
    throw new KeyError('is not a PEM public key (expected a "-----BEGIN PUBLIC KEY-----" block)', true);
  }
  if (key.asymmetricKeyType !== "rsa") {
    throw new KeyError(`only RSA keys are accepted (RS256); this is a ${key.asymmetricKeyType} key`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) throw new KeyError(`RSA key is ${bits} bits; at least ${MIN_RSA_BITS} are required`);
  return key.export({ type: "spki", format: "pem" }).toString();
}

export function addKey(db: Db, orgId: string, pem: string, kid = newId(), now = Date.now()): KeyInfo {
  const spki = checkPublicKey(pem);
  if (db.query("SELECT 1 FROM keys WHERE kid = ?").get(kid)) throw new KeyError(`a key with kid "${kid}" already exists`);
  db.query("INSERT INTO keys (kid, org_id, public_key, active, created_at) VALUES (?, ?, ?, 1, ?)").run(kid, orgId, spki, now);
  return { kid, orgId, active: true };
}

interface KeyRow {
  kid: string;
  org_id: string;
  active: number;
  public_key: string;
}

const info = (r: KeyRow): KeyInfo => ({ kid: r.kid, orgId: r.org_id, active: r.active === 1 });

export function listKeys(db: Db, orgId?: string): KeyInfo[] {
  const rows = orgId
    ? db.query<KeyRow, [string]>("SELECT * FROM keys WHERE org_id = ? ORDER BY created_at, kid").all(orgId)
    : db.query<KeyRow, []>("SELECT * FROM keys ORDER BY created_at, kid").all();
  return rows.map(info);
}

/** Returns false when no such key exists. */
export function setKeyActive(db: Db, kid: string, active: boolean): boolean {
  return db.query("UPDATE keys SET active = ? WHERE kid = ?").run(active ? 1 : 0, kid).changes > 0;
}

export function deleteKey(db: Db, kid: string): boolean {
  return db.query("DELETE FROM keys WHERE kid = ?").run(kid).changes > 0;
}

/**
 * The cached-token check, read on every request so CLI changes apply at once: the organization
 * of `kid` when it is active and still holds `pem`. The comparison runs in SQLite, so the hot
 * path neither reads the PEM out nor builds a row object.
 */
export function activeKeyOrg(db: Db, kid: string, pem: string): string | undefined {
  return db.query<{ org_id: string }, [string, string]>("SELECT org_id FROM keys WHERE kid = ? AND active = 1 AND public_key = ?").get(kid, pem)
    ?.org_id;
}

/** The verifier's lookup for a token it has not seen. */
export function findActiveKey(db: Db, kid: string): { orgId: string; pem: string } | undefined {
  const r = db.query<KeyRow, [string]>("SELECT * FROM keys WHERE kid = ? AND active = 1").get(kid);
  return r ? { orgId: r.org_id, pem: r.public_key } : undefined;
}
