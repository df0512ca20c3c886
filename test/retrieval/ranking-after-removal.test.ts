import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, ingest } from "../posts/helpers.ts";
import { plantNearTies } from "./near-ties.ts";

// Text ranking reads the organization's own statistics, kept on every index write
// (store/scoped-bm25.ts). Documents of its own in another corpus count, so they can flip which
// of two near-equal chunks is cited first; once they are removed (document delete, replacement
// of their content, corpus delete) the ranking must be what it was before they were written.
// Index deletes may run after the API answers, hence the polling.

let k: Kbqa;
let b: Org;
let plantedTop: () => Promise<string[]>;
const ZEBRAS = 8;
const zebraText = (i: number) => `# Z ${i}\n\nzebra zebra zebra report number ${i}.\n`;

beforeAll(async () => {
  k = await startKbqa();
  b = await k.org();
  plantedTop = await plantNearTies(k, b);
});
afterAll(() => k?.stop());

const topCitations = async () => (await plantedTop()).join(",");

const backTo = (expected: string, what: string) => waitFor(async () => (await topCitations()) === expected, what, 30_000, 50);

async function zebraDocs(corpusId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < ZEBRAS; i++) ids.push(await ingest(k, b, corpusId, `z${i}.md`, zebraText(i)));
  expect(await topCitations()).toBe("quokka,quokka");
  return ids;
}

test("own documents removed from another corpus stop counting, whichever way they go", async () => {
  const before = await topCitations();
  expect(before).toBe("zebra,zebra");
  const extra = await corpus(b, "extra");

  for (const id of await zebraDocs(extra)) expect((await b.api("DELETE", `/v1/doc/${id}`)).status).toBe(200);
  await backTo(before, "ranking after the documents' delete");

  // New content for the same documents: the old chunks' words go with them.
  for (const id of await zebraDocs(extra)) {
    const again = await b.api("PUT", `/v1/doc/${id}/init`, {});
    expect(again.status).toBe(200);
    const url = String(again.body.uploadUrl);
    const put = await fetch(url.startsWith("http") ? url : k.url + url, { method: "PUT", headers: { "content-type": "text/markdown" }, body: `# W ${id}\n\nwalrus walrus report.\n` });
    expect(put.status).toBe(200);
    expect((await b.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    await waitFor(async () => (await b.api("GET", `/v1/doc/${id}/status`)).body?.status === "READY", "replacement READY");
  }
  await backTo(before, "ranking after the documents' replacement");

  const doomed = await corpus(b, "doomed");
  await zebraDocs(doomed);
  expect((await b.api("DELETE", `/v1/corpus/${doomed}`)).status).toBe(200);
  await backTo(before, "ranking after the corpus delete");
});
