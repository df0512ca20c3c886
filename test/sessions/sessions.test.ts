import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

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

const corpus = async (o: Org, name = "c") => (await o.api("POST", "/v1/corpus/", { name })).body.id as string;
const usage = (orgId: string, op: string) =>
  db.query<{ n: number }, [string, string]>("SELECT coalesce(sum(amount), 0) AS n FROM usage_events WHERE org_id = ? AND metric = 'sessions' AND op = ?").get(orgId, op)!.n;

describe("session lifecycle", () => {
  test("create (legacy fields ignored), get, patch moves updatedAt, delete acknowledges and hides", async () => {
    const [c1, c2] = [await corpus(a), await corpus(a)];
    const before = usage(a.orgId, "created");
    const s = await a.api("POST", "/v1/session/", {
      corpusIds: [c2, c1, c2],
      metadata: { channel: "web" },
      model: "gpt",
      system: "be nice",
      temperature: 0.9,
      thinking: "HIGH",
    });
    expect(s.status).toBe(200);
    expect(s.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orgId: a.orgId,
      userId: "user-1",
      corpusIds: [c2, c1],
      metadata: { channel: "web" },
      createdAt: s.body.createdAt,
      updatedAt: s.body.createdAt,
    });
    expect(usage(a.orgId, "created")).toBe(before + 1);
    const got = await a.api("GET", `/v1/session/${s.body.id}`);
    expect(got.body).toEqual(s.body);

    const p = await a.api("PATCH", `/v1/session/${s.body.id}`, { metadata: { channel: "app", n: 1 }, corpusIds: [c1], temperature: 1 });
    expect(p.status).toBe(200);
    expect(p.body).toEqual({ ...s.body, metadata: { channel: "app", n: 1 }, updatedAt: p.body.updatedAt });
    expect(Date.parse(p.body.updatedAt)).toBeGreaterThan(Date.parse(s.body.createdAt));
    const p2 = await a.api("PATCH", `/v1/session/${s.body.id}`, { metadata: {} });
    expect(p2.body.metadata).toEqual({});
    expect(Date.parse(p2.body.updatedAt)).toBeGreaterThan(Date.parse(p.body.updatedAt));
    expect(p2.body.createdAt).toBe(s.body.createdAt);

    const removedBefore = usage(a.orgId, "removed");
    const d = await a.api("DELETE", `/v1/session/${s.body.id}`);
    expect(d.status).toBe(200);
    expect(Object.keys(d.body).sort()).toEqual(["message", "timestamp"]);
    expect(usage(a.orgId, "removed")).toBe(removedBefore + 1);
    for (const [m, body] of [["GET", undefined], ["PATCH", { metadata: {} }], ["DELETE", undefined]] as const) {
      expect((await a.api(m, `/v1/session/${s.body.id}`, body)).status).toBe(404);
    }
    const list = await a.api("GET", "/v1/session/?pageSize=100");
    expect(list.body.items.map((x: { id: string }) => x.id)).not.toContain(s.body.id);
  });

  test("corpusIds must be live corpora of the organization", async () => {
    const mine = await corpus(a);
    const theirs = await corpus(b);
    const gone = await corpus(a);
    await a.api("DELETE", `/v1/corpus/${gone}`);
    const before = usage(a.orgId, "created");
    for (const ids of [[theirs], [mine, theirs], [gone], [crypto.randomUUID()]]) {
      const r = await a.api("POST", "/v1/session/", { corpusIds: ids });
      expect(r.status).toBe(404);
      expect(r.body.message).toContain("Corpus");
    }
    expect(usage(a.orgId, "created")).toBe(before);
    for (const [body, field] of [[{}, "corpusIds"], [{ corpusIds: [] }, "corpusIds"], [{ corpusIds: ["nope"] }, "corpusIds"], [{ corpusIds: [mine], metadata: [1] }, "metadata"]] as const) {
      const r = await a.api("POST", "/v1/session/", body);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(field);
    }
    expect((await a.api("PATCH", `/v1/session/${crypto.randomUUID()}`, { metadata: "x" })).status).toBe(400);
  });

  test("another organization's session answers 404 everywhere and never lists", async () => {
    const s = (await a.api("POST", "/v1/session/", { corpusIds: [await corpus(a)] })).body;
    for (const [m, body] of [["GET", undefined], ["PATCH", { metadata: { x: 1 } }], ["DELETE", undefined]] as const) {
      expect((await b.api(m, `/v1/session/${s.id}`, body)).status).toBe(404);
    }
    const list = await b.api("GET", "/v1/session/?pageSize=100");
    expect(list.body.orgId).toBe(b.orgId);
    expect(list.body.items.map((x: { id: string }) => x.id)).not.toContain(s.id);
    expect((await a.api("GET", `/v1/session/${s.id}`)).body.metadata).toEqual({});
  });

  test("deleting a corpus soft-deletes every session bound to it, even those naming other corpora", async () => {
    const [c1, c2, c3] = [await corpus(a), await corpus(a), await corpus(a)];
    const only = (await a.api("POST", "/v1/session/", { corpusIds: [c1] })).body.id;
    const both = (await a.api("POST", "/v1/session/", { corpusIds: [c2, c1] })).body.id;
    const other = (await a.api("POST", "/v1/session/", { corpusIds: [c3] })).body.id;
    const removedBefore = usage(a.orgId, "removed");
    expect((await a.api("DELETE", `/v1/corpus/${c1}`)).status).toBe(200);
    expect((await a.api("GET", `/v1/session/${only}`)).status).toBe(404);
    expect((await a.api("GET", `/v1/session/${both}`)).status).toBe(404);
    expect((await a.api("GET", `/v1/session/${other}`)).status).toBe(200);
    expect(usage(a.orgId, "removed")).toBe(removedBefore + 2);
    // rows are kept (soft delete)
    expect(db.query("SELECT count(*) AS n FROM sessions WHERE id IN (?, ?) AND deleted_at IS NOT NULL").get(only, both)).toEqual({ n: 2 });
  });

  test("sessions created before the Versioning change keep their legacy fields", async () => {
    const c = await corpus(a);
    const id = crypto.randomUUID();
    // No API path writes these any more: an imported old row is simulated directly in SQLite.
    db.query("INSERT INTO sessions (id, org_id, user_id, metadata, legacy, created_at, updated_at) VALUES (?, ?, 'old', '{}', ?, 1000, 1000)").run(
      id,
      a.orgId,
      JSON.stringify({ model: "m1", system: "s", temperature: 0.5, thinking: "LOW" }),
    );
    db.query("INSERT INTO session_corpora (session_id, org_id, corpus_id, pos) VALUES (?, ?, ?, 0)").run(id, a.orgId, c);
    const r = await a.api("GET", `/v1/session/${id}`);
    expect(r.body).toEqual({
      id,
      orgId: a.orgId,
      userId: "old",
      corpusIds: [c],
      metadata: {},
      createdAt: "1970-01-01T00:00:01.000Z",
      updatedAt: "1970-01-01T00:00:01.000Z",
      model: "m1",
      system: "s",
      temperature: 0.5,
      thinking: "LOW",
    });
  });

  test("the session owner is the credential's user", async () => {
    const c = await corpus(a);
    const jwt = await a.jwt({}, { sub: "alice" });
    const r = await k.request("POST", "/v1/session/", { corpusIds: [c], userId: "mallory" }, { authorization: `Bearer ${jwt}` });
    expect(r.body.userId).toBe("alice");
  });
});
