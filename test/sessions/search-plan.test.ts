// Session searches were linear in the organization's sessions (at 100,000 sessions: 150–550 ms a
// request, the event loop held up to 2 s; README, Performance): an owner's listing walked the
// organization index (SQLite, without statistics, prefers the index that spares the sort), a
// corpus filter probed every session's bindings, a metadata filter parsed every session's
// metadata in JavaScript. Each filter now reads its own index range in the listing's order
// (src/sessions/search.ts); the plans are checked on the server's own database, with the
// statements the route runs, for every filter as the driver, as a probe and merged.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { fragmentPlan, pairPlan, intersectSql, rowsByIdSql, searchSql, type IndexedFilter } from "../../src/sessions/search.ts";

let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  for (const metadata of [{ channel: "web", n: 3 }, { channel: "app", tags: ["vip"], visitor: { country: "FR" } }]) {
    expect((await org.api("POST", "/v1/session/", { corpusIds: [corpusId], metadata })).status).toBe(200);
  }
});
afterAll(() => k.stop());

const plan = (db: Database, sql: string, args: readonly unknown[]) =>
  (db.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(args as string[])) as { detail: string }[]).map((p) => p.detail);

const DRIVER: Record<string, string> = {
  user: "USING COVERING INDEX sessions_owner (org_id=? AND user_id=? AND deleted_at=?)",
  corpus: "USING COVERING INDEX session_corpora_live (org_id=? AND corpus_id=? AND deleted_at=?)",
  meta: "USING COVERING INDEX session_meta_find (org_id=? AND key=? AND sub=? AND val=?)",
  none: "USING COVERING INDEX sessions_org (org_id=? AND deleted_at=?)",
};
const PROBE: Record<string, string> = {
  user: "USING COVERING INDEX sessions_owner (org_id=? AND user_id=? AND deleted_at=? AND created_at=? AND id=?)",
  corpus: "USING COVERING INDEX session_corpora_live (org_id=? AND corpus_id=? AND deleted_at=? AND created_at=? AND session_id=?)",
  meta: "USING COVERING INDEX session_meta_find (org_id=? AND key=? AND sub=? AND val=? AND created_at=? AND session_id=?)",
};

test("every filter reads its own index range in the listing's order, and probes the others' by their full key", () => {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    const meta = fragmentPlan({ channel: "web" }).conds;
    const shapes: [IndexedFilter, string[]][] = [
      [{ users: [], conds: [], boundLive: false }, ["none"]],
      [{ users: ["u"], conds: [], boundLive: false }, ["user"]],
      [{ users: [], corpusId: "c", conds: [], boundLive: false }, ["corpus"]],
      [{ users: [], conds: meta, boundLive: false }, ["meta"]],
      [{ users: ["u"], corpusId: "c", conds: fragmentPlan({ channel: "web", visitor: { country: "FR" } }).conds, boundLive: false }, ["user", "corpus", "meta", "meta"]],
    ];
    for (const [f, kinds] of shapes) {
      kinds.forEach((kind, driver) => {
        const q = searchSql(org.orgId, f, driver);
        for (const [sql, args] of [[q.count, q.args], [q.page, [...q.args, 25, 0]]] as const) {
          const p = plan(db, sql, args);
          expect(p[0], sql).toContain(DRIVER[kind]!);
          expect(p.join(" | "), sql).not.toContain("TEMP B-TREE"); // the page is read in index order
          expect(p.join(" | "), sql).not.toMatch(/\bSCAN\b/);
          kinds.forEach((other, i) => {
            if (i !== driver) expect(p.join(" | "), sql).toContain(PROBE[other]!);
          });
        }
      });
      // Merged: every range read once in its index, in the listing's order, without a sort.
      const m = intersectSql(org.orgId, f);
      const p = plan(db, m.sql, m.args);
      expect(p.join(" | "), m.sql).not.toContain("TEMP B-TREE");
      if (kinds.length > 1) expect(p).toContain("MERGE (INTERSECT)");
      for (const kind of kinds) expect(p).toContain(`SEARCH d ${DRIVER[kind]!}`);
    }
    // A pair whose value is also a number's JSON text reads two values of the key: a sort of the matches only.
    const two = searchSql(org.orgId, { users: [], conds: pairPlan("n", "3").conds, boundLive: false });
    expect(plan(db, two.page, [...two.args, 25, 0])[0]).toContain("USING COVERING INDEX session_meta_find (org_id=? AND key=? AND sub=? AND val=?)");
    // The page's rows by primary key, not a walk of an organization index.
    expect(plan(db, rowsByIdSql(3), [org.orgId, "a", "b", "c"]).join(" | ")).toContain("USING INDEX sqlite_autoindex_sessions_1 (id=?)");
  } finally {
    db.close();
  }
});

test("the metadata index holds a row per top-level value, scalar child and distinct scalar element", () => {
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    const rows = db
      .query("SELECT key, sub, val FROM session_meta WHERE org_id = ? ORDER BY key, sub, val")
      .all(org.orgId);
    expect(rows).toEqual([
      { key: "channel", sub: "", val: '"app"' },
      { key: "channel", sub: "", val: '"web"' },
      { key: "n", sub: "", val: "3" },
      { key: "tags", sub: "", val: "[]" },
      { key: "tags", sub: "[]", val: '"vip"' },
      { key: "visitor", sub: "", val: "{}" },
      { key: "visitor", sub: ".country", val: '"FR"' },
    ]);
  } finally {
    db.close();
  }
});

test("containment decomposes into index conditions exactly for scalars, objects and arrays of scalars", () => {
  expect(fragmentPlan({ a: "x", b: 3, c: true, d: null })).toEqual({
    exact: true,
    conds: [
      { key: "a", sub: "", vals: ['"x"'] },
      { key: "b", sub: "", vals: ["3"] },
      { key: "c", sub: "", vals: ["true"] },
      { key: "d", sub: "", vals: ["null"] },
    ],
  });
  // The child and element rows exist only under an object or an array: no row for the parent.
  expect(fragmentPlan({ o: { c: "x" }, t: ["v", "v"] })).toEqual({
    exact: true,
    conds: [
      { key: "o", sub: ".c", vals: ['"x"'] },
      { key: "t", sub: "[]", vals: ['"v"'] },
    ],
  });
  expect(fragmentPlan({ o: {}, t: [] })).toEqual({ exact: true, conds: [{ key: "o", sub: "", vals: ["{}"] }, { key: "t", sub: "", vals: ["[]"] }] });
  // Deeper values, non-finite numbers and lone surrogates: the conditions only narrow.
  expect(fragmentPlan({ o: { c: { d: 1 } } })).toEqual({ exact: false, conds: [{ key: "o", sub: "", vals: ["{}"] }] });
  expect(fragmentPlan({ t: [{ k: 1 }, "v"] })).toEqual({ exact: false, conds: [{ key: "t", sub: "[]", vals: ['"v"'] }, { key: "t", sub: "", vals: ["[]"] }] });
  expect(fragmentPlan({ n: Infinity }).exact).toBe(false);
  expect(fragmentPlan({ s: "\ud800" }).exact).toBe(false);
  // A pair matches the string, or a number, boolean or null whose JSON text the value is.
  expect(pairPlan("n", "3")).toEqual({ exact: true, conds: [{ key: "n", sub: "", vals: ['"3"', "3"] }] });
  expect(pairPlan("n", "3.0")).toEqual({ exact: true, conds: [{ key: "n", sub: "", vals: ['"3.0"'] }] });
  expect(pairPlan("b", "true").conds[0]!.vals).toEqual(['"true"', "true"]);
});
