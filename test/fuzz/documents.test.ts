// Schema-driven fuzz of documents in every state (ready, awaiting upload, failed, deleted, of
// the other organization), their attachment aliases, and the presigned storage URLs
// (generator: test/helpers/fuzz-cases.ts; FUZZ_SEED and FUZZ_CAP replay or widen a run); and of
// the `chunk` configuration, which the API stores unchecked and ingestion judges.
import { expect, test } from "bun:test";
import { fuzzDomain, storage } from "../helpers/fuzz-domain.ts";
import { SEED } from "../helpers/fuzz-run.ts";
import { rng } from "../helpers/seeded.ts";
import { startKbqa, waitFor } from "../helpers/server.ts";

fuzzDomain("documents", { minOps: 15, extra: storage });

const KEYS = ["strategy", "max_characters", "new_after_n_chars", "overlap", "overlap_all", "combine_text_under_n_chars", "multipage_sections", "zzz"];
const VALUES: unknown[] = [null, true, false, "5", "basic", "by_title", "", -1, 0, 1, 5, 50, 400, 1.5, 1e308, 2 ** 53 + 2, [], {}, { a: 1 }];

test(`a document with any chunk configuration ends READY, or FAILED naming the chunk setting, within 30 s (seed ${SEED})`, async () => {
  // Spec: a bad chunk key is no error on init; the ingestion ends FAILED with the reason.
  await using k = await startKbqa();
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "chunking" })).body.id;
  const rnd = rng(SEED);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const problems: string[] = [];
  const ends: string[] = [];
  for (let i = 0; i < 10; i++) {
    const chunk = Object.fromEntries(Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => [pick(KEYS), pick(VALUES)]));
    const text = `# Part ${i}\n\n${"Harbour words and weather words. ".repeat(40)}\n\n## More ${i}\n\n${"Tides rise at noon. ".repeat(40)}\n`;
    const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: `c${i}.md`, contentType: "text/markdown", chunk });
    const seen = `chunk ${JSON.stringify(chunk)}`;
    if (init.status !== 200) {
      problems.push(`${seen}: init answered ${init.status} ${JSON.stringify(init.body)}`);
      continue;
    }
    const put = await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body: text });
    const commit = await org.api("POST", `/v1/doc/${init.body.document.id}/commit`);
    if (put.status !== 200 || commit.status !== 202) {
      problems.push(`${seen}: upload ${put.status}, commit ${commit.status}`);
      continue;
    }
    const end = await waitFor(async () => {
      const s = (await org.api("GET", `/v1/doc/${init.body.document.id}/status`)).body;
      return s.status === "READY" || s.status === "FAILED" ? s : null;
    }, `the end of ${seen}`, 30_000);
    ends.push(end.status);
    if (end.status === "FAILED" && !/chunk/.test(end.statusMsg ?? "")) problems.push(`${seen}: FAILED without naming the setting: ${end.statusMsg}`);
  }
  console.log(`chunk configurations: ${ends.filter((s) => s === "READY").length} READY, ${ends.filter((s) => s === "FAILED").length} FAILED`);
  expect(problems).toEqual([]);
  expect((await k.request("GET", "/pub/ping")).status).toBe(200);
}, 120_000);
