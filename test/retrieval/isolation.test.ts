import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "../posts/helpers.ts";
import { sql } from "../posts/sql.ts";

// Unique canary words planted outside the session's reach: in another corpus of the same
// organization and in another organization. Queries naming them must never surface them.
const CANARY_CORPUS = "xylophanequartz";
const CANARY_ORG = "zebracrumpetine";

let k: Kbqa;
let a: Org;
let b: Org;
let mine: string;
let sibling: string;
let foreign: string;
const docs: Record<string, string> = {};

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  b = await k.org();
  mine = await corpus(a, "mine");
  sibling = await corpus(a, "sibling");
  foreign = await corpus(b, "foreign");
  docs.mine = await ingest(k, a, mine, "harbour.md", "# Harbour\n\nThe harbour office opens at eight. Ferries leave every hour from pier two.\n");
  docs.sibling = await ingest(k, a, sibling, "secret.md", `# Protocol\n\nThe ${CANARY_CORPUS} protocol requires two keys and a red lamp.\n`);
  docs.foreign = await ingest(k, b, foreign, "other.md", `# Recipe\n\nThe ${CANARY_ORG} recipe needs saffron and three eggs.\n`);
});
afterAll(() => k?.stop());

const citedDocs = (postId: string) =>
  sql<{ document_id: string }>(k, "SELECT document_id FROM post_citations WHERE post_id = ?", postId).map((r) => r.document_id);

describe("retrieval isolation", () => {
  test("positive control: each canary is found from a session over its own corpus", async () => {
    const r1 = await ask(a, await session(a, [sibling]), `What does the ${CANARY_CORPUS} protocol require?`);
    expect(r1.body.answer.body).toContain("two keys");
    expect(citedDocs(r1.body.answer.id)).toContain(docs.sibling!);
    const r2 = await ask(b, await session(b, [foreign]), `What does the ${CANARY_ORG} recipe need?`);
    expect(r2.body.answer.body).toContain("saffron");
  });

  test("no chunk of another corpus or another organization reaches a session's retrieval", async () => {
    const s = await session(a, [mine]);
    for (const q of [
      `What does the ${CANARY_CORPUS} protocol require?`,
      `What does the ${CANARY_ORG} recipe need?`,
      `${CANARY_CORPUS} ${CANARY_ORG} protocol recipe keys saffron`,
    ]) {
      const r = await ask(a, s, q);
      expect(r.status).toBe(200);
      const text = r.body.answer.body.toLowerCase();
      expect(text).not.toContain(CANARY_CORPUS);
      expect(text).not.toContain(CANARY_ORG);
      expect(text).not.toContain("saffron");
      expect(text).not.toContain("two keys");
      for (const d of citedDocs(r.body.answer.id)) expect(d).toBe(docs.mine!);
      const att = (await a.api("GET", `/v1/post/attachment/${r.body.answer.id}`)).body;
      for (const x of att) expect(x.docId).toBe(docs.mine!);
    }
  });

  test("a session over several corpora searches exactly those", async () => {
    const s = await session(a, [mine, sibling]);
    const r = await ask(a, s, `What does the ${CANARY_CORPUS} protocol require?`);
    expect(r.body.answer.body).toContain("two keys");
    const r2 = await ask(a, s, `What does the ${CANARY_ORG} recipe need?`);
    expect(r2.body.answer.body.toLowerCase()).not.toContain("saffron");
    for (const d of citedDocs(r2.body.answer.id)) expect([docs.mine, docs.sibling]).toContain(d);
  });
});
