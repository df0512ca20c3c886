import type { Db } from "../store/db.ts";
import { newId } from "../store/ids.ts";

export interface Org {
  id: string;
  name: string;
}

export function createOrg(db: Db, name: string, now = Date.now()): Org {
  const id = newId();
  db.query("INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?)").run(id, name, now);
  return { id, name };
}

export function listOrgs(db: Db): Org[] {
  return db.query<Org, []>("SELECT id, name FROM orgs ORDER BY created_at, id").all();
}

export function orgExists(db: Db, id: string): boolean {
  return db.query("SELECT 1 FROM orgs WHERE id = ?").get(id) != null;
}
