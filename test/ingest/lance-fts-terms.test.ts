// Text ranking is recomputed in process from the caller's own statistics (store/scoped-bm25.ts),
// which is only right if its terms are the ones LanceDB's full-text index makes (store/fts-terms.ts)
// and its formula the index's. Both are checked here against the index itself.
import { afterAll, expect, test } from "bun:test";
import * as lancedb from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ftsTerms } from "../../src/store/fts-terms.ts";
import { rankScoped, TextStats } from "../../src/store/scoped-bm25.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-fts-terms-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Inflections the stemmer treats specially, stop words and words whose stem is one, numbers,
// accents, a token at and past the length limit.
const WORDS = (
  "run runs running runner runners ran added adding add adds hoping hope hopping hop seeing agreed feed " +
  "generously generous generation communication communicate arsenal skies sky skis dying lying news cries ties " +
  "gas gaps kiwis happily happy fluently geology electrical formalize national rational conditional hopefulness " +
  "goodness adjustable adoption decision decisions inning innings proceed proceeding succeed exceed yelling " +
  "played playing boy boys enjoy enjoying cry crying by only early ugly idly gently singly having does doing " +
  "being itself ourselves yourselves the of and don t just now should will can policy policies claim claims " +
  "claimed reimbursement reimbursed insurance e12 2024 3rd café cafe école ecole straße naïve résumé resume " +
  "x".repeat(39) + " " + "y".repeat(40) + " " + "é".repeat(20)
).split(" ");

test("each word matches the same rows in the index as its terms say", async () => {
  const conn = await lancedb.connect(join(dir, "words"));
  const t = await conn.createTable("t", WORDS.map((text, id) => ({ id, text })));
  await t.createIndex("text", { config: lancedb.Index.fts() });
  const mine = WORDS.map((w) => ftsTerms(w).join(" "));
  const mismatches: string[] = [];
  for (let i = 0; i < WORDS.length; i++) {
    const rs = await t.query().fullTextSearch(WORDS[i]!, { columns: ["text"] }).select(["id", "_score"]).limit(500).toArray();
    const got = rs.map((r) => WORDS[Number(r.id)]).sort();
    const expected = mine[i] ? WORDS.filter((_, j) => mine[j] === mine[i]).sort() : [];
    if (JSON.stringify(got) !== JSON.stringify(expected)) mismatches.push(`${WORDS[i]}: index ${got.join(",")}; terms ${expected.join(",")}`);
  }
  expect(mismatches).toEqual([]);
  conn.close();
});

test("with every row a match, the scores are the index's", async () => {
  const texts = [
    "The claim was reimbursed within thirty days.",
    "Claims for travel are reimbursed monthly; claims for equipment, yearly. Claims!",
    "Running the claims office: a guide to reimbursement policies and their running costs.",
    "reimbursement",
    "A claim, a claim, a claim: every claim counts, and the policies say so at length in this rather long sentence.",
  ];
  const conn = await lancedb.connect(join(dir, "scores"));
  const t = await conn.createTable("t", texts.map((text, id) => ({ id: String(id), text })));
  await t.createIndex("text", { config: lancedb.Index.fts() });
  for (const query of ["claims reimbursed", "claim claim running", "reimbursement policy"]) {
    const rs = await t.query().fullTextSearch(query, { columns: ["text"] }).select(["id", "_score"]).limit(10).toArray();
    const stats = new TextStats();
    for (const text of texts) stats.add("org", text);
    const pool = texts.map((text, id) => ({ chunkId: String(id), documentId: "d", corpusId: "c", text }));
    const ranked = rankScoped(query, pool, stats.of("org"), 10).filter((r) => r.score > 0);
    const index = new Map(rs.map((r) => [String(r.id), Number(r._score)]));
    expect(ranked.map((r) => r.chunkId).sort()).toEqual([...index.keys()].sort());
    for (const r of ranked) expect(r.score).toBeCloseTo(index.get(r.chunkId)!, 4);
  }
  conn.close();
});
