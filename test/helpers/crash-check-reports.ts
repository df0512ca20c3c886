/** The crash test's invariants of what the server sums up: usage reports, and the index answers find. */
import { waitFor } from "./server.ts";
import { codes, type OrgModel } from "./crash-model.ts";
import { call, type Env } from "./crash-http.ts";
import { explainMissing } from "./crash-explain.ts";

type Fail = (m: string) => void;

/**
 * Storage usage (`live`: created − removed) is the sum of the sizes of the live documents, for the
 * organization, each corpus (a deleted one's report ends at 0) and each user; a corpus delete
 * counts as its rows are marked in the background. Live corpora and sessions: as many as listed.
 */
export async function checkUsage(env: Env, o: OrgModel, docs: any[], fail: Fail) {
  const sum = (f: (d: any) => boolean) => docs.filter(f).reduce((s, d) => s + (d.size ?? 0), 0);
  const users = [...new Set(docs.map((d) => d.userId as string))];
  const scopes: [string, number][] = [
    ["all", sum(() => true)],
    ...o.corpora.map((c): [string, number] => [`corpus/${c.id}`, sum((d) => d.corpusId === c.id)]),
    ...users.map((u): [string, number] => [`user/${u}`, sum((d) => d.userId === u)]),
  ];
  const wrong = async () => {
    const got = await Promise.all(scopes.map(async ([s, want]) => [s, want, (await call(env, o, "GET", `/v1/usage/${s}?timeframe=Day`)).body.storage?.live]));
    // Live corpora and sessions counted by the report are those the listings show.
    const all = (await call(env, o, "GET", "/v1/usage/all?timeframe=Day")).body;
    for (const [k, path] of [["corpora", "/v1/corpus/"], ["sessions", "/v1/session/"]] as const) got.push([k, (await call(env, o, "GET", `${path}?pageSize=1`)).body.total, all[k].live]);
    return got.filter(([, want, live]) => want !== live);
  };
  await waitFor(async () => (await wrong()).length === 0, "usage", 20_000, 100)
    .catch(async () => fail(`${o.name}: storage usage live [scope, expected, reported]: ${JSON.stringify(await wrong())}`));
}

/** A few READY documents are found by their code word: their chunks are in the index (vectors and text). */
export async function checkFindable(env: Env, o: OrgModel, ready: Set<string>, fail: Fail, dataDir: string) {
  const sample = o.docs.filter((d) => ready.has(d.id) && d.candidates.size === 1).slice(-6);
  for (const d of sample) {
    const code = codes.get([...d.candidates.keys()][0]!);
    const s = await call(env, o, "POST", "/v1/session/", { corpusIds: [d.corpusId] });
    const ask = async () => {
      const q = await call(env, o, "GET", `/v1/post/q?${new URLSearchParams({ sessionId: s.body.id, body: code! })}`);
      const at = q.status === 200 ? await call(env, o, "GET", `/v1/post/attachment/${q.body.answer.id}`) : undefined;
      return { q, cited: !!at?.body.some((x: any) => x.docId === d.id), docs: at?.body.map((x: any) => x.docId) ?? [] };
    };
    const first = await ask();
    if (first.cited) continue;
    // Still a failure; asked again after a while, the report tells a lagging index from rows lost.
    await Bun.sleep(3_000);
    const again = await ask();
    const { q } = first;
    // What SQLite and LanceDB hold of the document, and what the full-text index answers: which side lost what.
    const why = await explainMissing(dataDir, o.orgId, d.corpusId, d.id, code!);
    fail(`${o.name} document ${d.id}: a question naming its code word ${code} does not cite it (${q.status}: ${JSON.stringify(q.body?.answer?.body)?.slice(0, 200)}; cited ${JSON.stringify(first.docs)}; asked again 3 s later: ${again.cited ? "cited" : "still not cited"})\n  ${why}`);
  }
}
