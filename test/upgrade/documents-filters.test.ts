// documents-009 fills document_filters from the documents an older version wrote, in the
// migration itself: a data directory taken back to the schema before it (table, triggers and
// migration record removed, then documents changed the way that version changed them, with no
// trigger to see it) answers every filtered listing as the previous statements answered it there.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa } from "../helpers/server.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { previousDocumentSearchSql, UNDO_DOCUMENTS_009 } from "../../scripts/lib/document-search-previous.ts";
import type { DocFilter } from "../../src/documents/search.ts";

const TAGS = ["a", "b", "x,y", "ü", "%"];
const STATUS = ["READY", "FAILED", "PROCESSING", "AWAITING_UPLOAD"];

test("an older data directory gets its filter rows at the upgrade and answers as before", async () => {
  const random = mulberry32(8);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  await using cleanup = { [Symbol.asyncDispose]: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const org = await first.org();
  const other = await first.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id as string;
  const otherCorpus = (await other.api("POST", "/v1/corpus/", { name: "c" })).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    const body = { filename: `${pick(["r", "M", "é"])}-${i}.md`, contentType: "text/markdown", tags: TAGS.filter(() => random() < 0.35), lang: pick(["en", "fr", null]) };
    ids.push((await org.api("POST", "/v1/doc/init", { corpusId, ...body })).body.document.id);
    expect((await other.api("POST", "/v1/doc/init", { corpusId: otherCorpus, ...body })).status).toBe(200);
  }
  for (const id of ids.slice(0, 5)) expect((await org.api("DELETE", `/v1/doc/${id}`)).status).toBe(200);
  await first.stop();

  const db = new Database(join(dataDir, "kbqa.sqlite"), { strict: true });
  db.exec(UNDO_DOCUMENTS_009);
  // What the older version wrote after: states, langs, sizes, tags (and an untracked delete).
  for (const id of ids) {
    db.query("UPDATE documents SET status = ?, lang = ?, size = ?, updated_at = ?, tags = ? WHERE id = ?").run(
      pick(STATUS), pick(["en", "fr", "de", null]), Math.floor(random() * 4), 1000 + Math.floor(random() * 3), JSON.stringify(TAGS.filter(() => random() < 0.4)), id);
  }
  db.query("UPDATE documents SET deleted_at = 1 WHERE id = ?").run(ids[10]!);
  db.query("UPDATE documents SET tags = NULL WHERE id = ?").run(ids[11]!);
  const filters: DocFilter[] = [];
  for (let i = 0; i < 60; i++) {
    const f: DocFilter = { corpusId, sort: pick(["CREATED_AT", "UPDATED_AT", "FILENAME", "SIZE"] as const), order: pick(["ASC", "DESC"] as const) };
    if (random() < 0.6) f.tags = TAGS.filter(() => random() < 0.3).concat(pick(TAGS));
    if (f.tags && random() < 0.5) f.tagsMatch = "ALL";
    if (random() < 0.5) f.status = STATUS.filter(() => random() < 0.4).concat(pick(STATUS));
    if (random() < 0.4) f.lang = pick(["en", "fr", "de"]);
    filters.push(f);
  }
  const before = filters.map((f) => {
    const q = previousDocumentSearchSql(org.orgId, f, { pageSize: 100, pageIndex: 0 });
    return { total: (db.query(q.count).get(q.params as never) as { n: number }).n, ids: (db.query(q.page).all(q.pageParams as never) as { id: string }[]).map((r) => r.id) };
  });
  db.close();

  await using k = await startKbqa({ dataDir });
  expect(k.stderr()).toContain('"migration":"documents-009"');
  const auth = { authorization: `Bearer ${await org.jwt()}` };
  const query = (f: DocFilter) =>
    [...(f.tags ?? []).map((t) => `tags=${encodeURIComponent(t)}`), ...(f.status ?? []).map((s) => `status=${s}`), f.lang && `lang=${f.lang}`, f.tagsMatch && `tagsMatch=${f.tagsMatch}`, `sort=${f.sort}`, `order=${f.order}`, "pageSize=100"]
      .filter(Boolean).join("&");
  let matched = 0;
  for (const [i, f] of filters.entries()) {
    const r = await k.request("GET", `/v1/doc/q?corpusId=${corpusId}&${query(f)}`, undefined, auth);
    expect(r.status).toBe(200);
    expect({ i, total: r.body.total, ids: r.body.items.map((d: { id: string }) => d.id) }).toEqual({ i, ...before[i]! });
    if (before[i]!.total) matched++;
  }
  expect(matched).toBeGreaterThan(filters.length / 3);
});
