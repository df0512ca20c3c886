// The crash test's model (test/helpers/crash-check.ts): a corpus delete the kill cut is uncertain
// until the next check. If the server did delete the corpus, its documents are gone too, and the
// check must expect them to answer 404, as after an acknowledged corpus delete. Seen failing in
// a crash run (CRASH_SEED=403678951): "document … (committed): GET answers 404", the document's
// corpus deleted by a DELETE in flight when the server was killed.
import { expect, test } from "bun:test";
import { startKbqa } from "../helpers/server.ts";
import { ingestDocument } from "../helpers/ingest.ts";
import { sha, type OrgModel } from "../helpers/crash-model.ts";
import { check } from "../helpers/crash-check.ts";
import type { Env } from "../helpers/crash-http.ts";

test("a cut corpus delete the server carried out counts its documents as deleted", async () => {
  await using k = await startKbqa();
  const [a, b] = [await k.org("A"), await k.org("B")];
  const orgs: OrgModel[] = [];
  for (const [name, org] of [["A", a], ["B", b]] as const) {
    orgs.push({ name, orgId: org.orgId, token: await org.jwt({}, { expSeconds: 600 }), corpora: [], docs: [], sessions: [], lostInits: 0, lostCorpora: 0 });
  }
  const o = orgs[0]!;
  const corpusId = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const bytes = new TextEncoder().encode("# Note\n\nThe pump valve and zqaaax.\n");
  const id = await ingestDocument(k, a, corpusId, "f.md", bytes);
  o.corpora.push({ id: corpusId, actor: 0, deleted: false, uncertain: true });
  o.docs.push({ id, corpusId, contentType: "text/markdown", filename: "f.md", state: "committed", candidates: new Map([[sha(bytes), bytes.byteLength]]), ever: new Set([sha(bytes)]) });
  // The delete whose answer the kill swallowed.
  expect((await a.api("DELETE", `/v1/corpus/${corpusId}`)).status).toBe(200);

  const env: Env = { base: k.url, stopped: false, failures: [], orgs, serial: 0, ops: 0, killAfter: 0, kill: () => {}, seen: {}, serverLogs: () => k.stderr() };
  await check(env, orgs, k.dataDir);
  expect(env.failures).toEqual([]);
  expect(o.docs[0]!.state).toBe("deleted");
}, 120_000);
