/**
 * Probe of a cross-organization side channel (README, "Text ranking statistics are the
 * organization's own"). LanceDB's full-text index scores with the statistics of the table every
 * organization shares: how many chunks hold a word, whoever owns them. Rows are filtered to the
 * caller's corpora, so no foreign text is ever returned, but ranked on those statistics, which
 * of its own chunks an organization gets cited would depend on the words of other
 * organizations' documents. The driver ranks the index's candidates again on the caller's own
 * statistics; what is left through the choice of candidates: scripts/probe-ranking-residual.ts.
 *
 *   bun scripts/probe-ranking-isolation.ts      (exit 0: no influence seen; 1: it is there)
 *
 * Organization B plants two chunks of the same length that differ in one word ("zebra" in one,
 * "quokka" in two), asks with a top-K of 1 and notes which one is cited: the rarer word's. Then
 * organization A ingests 30 documents full of "zebra" and B asks again. A control run first
 * ingests 30 documents of A with an unrelated word, which must change nothing.
 */
import { startKbqa, type Kbqa, type Org } from "../test/helpers/server.ts";
import { corpus, ingest, session } from "../test/posts/helpers.ts";

await using k: Kbqa = await startKbqa();
const a: Org = await k.org();
const b: Org = await k.org();
const aCorpus = await corpus(a, "a");
const bCorpus = await corpus(b, "b");
// Same length, same words but the last: their scores differ only by that word's rarity.
const zebra = await ingest(k, b, bCorpus, "one.md", "# Notes one\n\nThe committee reviewed the figures zebra.\n");
const quokka = await ingest(k, b, bCorpus, "two.md", "# Notes two\n\nThe committee reviewed the figures quokka.\n");
const quokka2 = await ingest(k, b, bCorpus, "six.md", "# Notes six\n\nThe committee reviewed the numbers quokka.\n");
const names: Record<string, string> = { [zebra]: "zebra", [quokka]: "quokka", [quokka2]: "quokka" };
const agentId = (await b.api("POST", "/v1/agent/", { name: "top one", topK: 1, rerank: false, useHistory: false })).body.id;
const sessionId = await session(b, [bCorpus]);

async function cited(): Promise<string[]> {
  const out: string[] = [];
  for (const body of ["zebra quokka", "quokka zebra"]) {
    const r = await b.api("GET", `/v1/post/q?${new URLSearchParams({ sessionId, body, agentId })}`);
    if (r.status !== 200) throw new Error(`question answered ${r.status}: ${JSON.stringify(r.body)}`);
    const c = await b.api("GET", `/v1/post/attachment/${r.body.answer.id}`);
    out.push(...c.body.map((x: { docId: string }) => names[x.docId] ?? x.docId));
  }
  return out;
}

const before = await cited();
for (let i = 0; i < 30; i++) await ingest(k, a, aCorpus, `w${i}.md`, `# W ${i}\n\nwalrus walrus walrus report number ${i}.\n`);
const control = await cited();
for (let i = 0; i < 30; i++) await ingest(k, a, aCorpus, `z${i}.md`, `# Z ${i}\n\nzebra zebra zebra report number ${i}.\n`);
const after = await cited();
console.log(`B's citations: before ${before.join(", ")}; after A's 30 "walrus" documents ${control.join(", ")}; after A's 30 "zebra" documents ${after.join(", ")}`);
const influenced = JSON.stringify(after) !== JSON.stringify(before);
console.log(influenced ? "another organization's documents changed which of B's chunks were cited" : "no influence seen");
process.exitCode = influenced ? 1 : 0;
