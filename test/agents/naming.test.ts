import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { CORE_AGENTS } from "../../src/agents/core.ts";

let k: Kbqa;
let a: Org;
let b: Org;
let db: Database;
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  db = new Database(join(k.dataDir, "kbqa.sqlite"));
  db.exec("PRAGMA busy_timeout = 5000");
});
afterAll(async () => {
  db.close();
  await k.stop();
});

const count = (orgId: string) => db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM agents WHERE org_id = ?").get(orgId)!.n;
const make = async (o: Org, name: string) => {
  const r = await o.api("POST", "/v1/agent/", { name });
  expect(r.status).toBe(200);
  return r.body;
};

describe("agent naming rules", () => {
  test("create onto a live own name → 409, nothing written; names compare exactly", async () => {
    const first = await make(a, "Support");
    const before = count(a.orgId);
    const dup = await a.api("POST", "/v1/agent/", { name: "Support", topK: 3 });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: 409, path: "/v1/agent/" });
    expect(count(a.orgId)).toBe(before);
    for (const other of ["support", "SUPPORT", "Support ", " Support"]) await make(a, other);
    expect((await a.api("GET", `/v1/agent/${first.id}`)).body).toEqual(first);
  });

  test("core names are blocked on create and rename, exactly; near misses are fine", async () => {
    for (const c of CORE_AGENTS) {
      const before = count(a.orgId);
      const r = await a.api("POST", "/v1/agent/", { name: c.name });
      expect({ name: c.name, status: r.status }).toEqual({ name: c.name, status: 409 });
      expect(count(a.orgId)).toBe(before);
    }
    const x = await make(a, "platform default");
    await make(a, "Platform Default 2");
    const r = await a.api("PATCH", `/v1/agent/${x.id}`, { name: "Platform Default", topK: 3 });
    expect(r.status).toBe(409);
    expect((await a.api("GET", `/v1/agent/${x.id}`)).body).toEqual(x); // nothing written, topK included
  });

  test("rename onto a sibling's name → 409; re-sending the own name is not a conflict", async () => {
    const one = await make(a, "One");
    const two = await make(a, "Two");
    const r = await a.api("PATCH", `/v1/agent/${two.id}`, { name: "One", description: "x" });
    expect(r.status).toBe(409);
    expect((await a.api("GET", `/v1/agent/${two.id}`)).body).toEqual(two);
    const same = await a.api("PATCH", `/v1/agent/${one.id}`, { name: "One", description: "kept name" });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ name: "One", description: "kept name" });
    const renamed = await a.api("PATCH", `/v1/agent/${two.id}`, { name: "Three" });
    expect(renamed.body.name).toBe("Three");
    await make(a, "Two"); // the old name is free after a rename
  });

  test("other organizations' names are irrelevant", async () => {
    await make(a, "Shared");
    const theirs = await make(b, "Shared");
    expect(theirs.orgId).toBe(b.orgId);
    const mine2 = await make(b, "Other");
    expect((await b.api("PATCH", `/v1/agent/${mine2.id}`, { name: "Private in A" })).status).toBe(200);
  });

  test("deleting an agent frees its name at once; the deleted agent stays 404", async () => {
    const old = await make(a, "Recycled");
    expect((await a.api("DELETE", `/v1/agent/${old.id}`)).status).toBe(200);
    const again = await make(a, "Recycled");
    expect(again.id).not.toBe(old.id);
    expect((await a.api("GET", `/v1/agent/${old.id}`)).status).toBe(404);
    const other = await make(a, "Mover");
    expect((await a.api("DELETE", `/v1/agent/${again.id}`)).status).toBe(200);
    expect((await a.api("PATCH", `/v1/agent/${other.id}`, { name: "Recycled" })).status).toBe(200);
  });

  test("an agent whose name later became a core name keeps it until changed, and cannot regain it", async () => {
    // No API path can create a custom agent with a core name, which is the point of the rule:
    // the row of an agent named before "Platform Daily" became core is written directly.
    const id = crypto.randomUUID();
    db.query(
      `INSERT INTO agents (id, org_id, name, top_k, rerank, use_history, thinking_mode, created_at, updated_at)
       VALUES (?, ?, 'Platform Daily', 8, 0, 1, 'LOW', 1000, 1000)`,
    ).run(id, a.orgId);
    const got = await a.api("GET", `/v1/agent/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ name: "Platform Daily", lock: false, orgId: a.orgId, default: false });
    const names = (await a.api("GET", "/v1/agent/")).body.map((x: { name: string }) => x.name);
    expect(names.filter((n: string) => n === "Platform Daily")).toHaveLength(2);

    // keeping the name (sent again or omitted) is fine
    const kept = await a.api("PATCH", `/v1/agent/${id}`, { name: "Platform Daily", temperature: 0.4 });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ name: "Platform Daily", temperature: 0.4 });
    expect((await a.api("PATCH", `/v1/agent/${id}`, { topK: 4 })).body.name).toBe("Platform Daily");

    // after changing it, it cannot go back
    expect((await a.api("PATCH", `/v1/agent/${id}`, { name: "Daily (ours)" })).status).toBe(200);
    const back = await a.api("PATCH", `/v1/agent/${id}`, { name: "Platform Daily" });
    expect(back.status).toBe(409);
    expect((await a.api("GET", `/v1/agent/${id}`)).body.name).toBe("Daily (ours)");
  });

  test("concurrent creates of one name: exactly one wins", async () => {
    const o = await k.org("race");
    const rs = await Promise.all(Array.from({ length: 6 }, () => o.api("POST", "/v1/agent/", { name: "Race" })));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(count(o.orgId)).toBe(1);
  });
});
