import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "../posts/helpers.ts";
import { sql } from "../posts/sql.ts";

// Text ranking must read the asking organization's statistics only. B holds two chunks that
// differ in one word, "zebra" in one and "quokka" in two, so BM25 ranks the zebra chunk first
// (the rarer word). If word counts of the table every organization shares were used, A's
// documents full of "zebra" would make zebra the commoner word and flip B's top citation.

let k: Kbqa;
let a: Org;
let b: Org;
let aCorpus: string;
let bSession: string;
let agentId: string;
const names: Record<string, string> = {};

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  b = await k.org();
  aCorpus = await corpus(a, "a");
  const bCorpus = await corpus(b, "b");
  names[await ingest(k, b, bCorpus, "one.md", "# Notes one\n\nThe committee reviewed the figures zebra.\n")] = "zebra";
  names[await ingest(k, b, bCorpus, "two.md", "# Notes two\n\nThe committee reviewed the figures quokka.\n")] = "quokka";
  names[await ingest(k, b, bCorpus, "six.md", "# Notes six\n\nThe committee reviewed the numbers quokka.\n")] = "quokka";
  const agent = await b.api("POST", "/v1/agent/", { name: "top one", topK: 1, rerank: false, useHistory: false });
  expect(agent.status).toBe(200);
  agentId = agent.body.id;
  bSession = await session(b, [bCorpus]);
});
afterAll(() => k?.stop());

async function bTopCitations(): Promise<string[]> {
  const out: string[] = [];
  for (const body of ["zebra quokka", "quokka zebra"]) {
    const r = await ask(b, bSession, body, { agentId });
    expect(r.status).toBe(200);
    const cited = sql<{ document_id: string }>(k, "SELECT document_id FROM post_citations WHERE post_id = ?", r.body.answer.id);
    out.push(...cited.map((c) => names[c.document_id] ?? "other"));
  }
  return out;
}

test("another organization's documents do not change which of one's chunks rank first", async () => {
  const before = await bTopCitations();
  expect(before).toEqual(["zebra", "zebra"]);
  for (let i = 0; i < 8; i++) await ingest(k, a, aCorpus, `z${i}.md`, `# Z ${i}\n\nzebra zebra zebra report number ${i}.\n`);
  expect(await bTopCitations()).toEqual(before);
});
