/** The crash test's invariants of one document and of the sessions (crash-check.ts runs them). */
import { sha, type DocModel, type OrgModel } from "./crash-model.ts";
import { call, type Env } from "./crash-http.ts";

type Fail = (m: string) => void;
export type Tile = { what: string; url: URL; documentId: string };

/** Acknowledged posts are there; a question now cites only live READY documents of the session's corpus. */
export async function checkSessions(env: Env, o: OrgModel, ready: Set<string>, listed: Map<string, any>, fail: Fail) {
  for (const s of o.sessions) {
    const gone = o.corpora.find((c) => c.id === s.corpusId)?.deleted;
    const a = await call(env, o, "GET", `/v1/post/?sessionId=${s.id}&pageSize=1`);
    if (gone ? a.status !== 404 : a.status !== 200) fail(`${o.name} session ${s.id} (corpus deleted: ${gone}): posts ${a.status}`);
    // An exchange is stored whole or not at all: a cut question adds both posts or none.
    else if (!gone && (a.body.total < s.posts || a.body.total > s.posts + 2 * s.cut || a.body.total % 2 !== 0)) fail(`${o.name} session ${s.id}: ${a.body.total} posts, ${s.posts} acknowledged, ${s.cut} cut`);
    if (gone) continue;
    [s.posts, s.cut] = [a.body.total, 0];
    // A question now cites only live READY documents of the session's corpus.
    const q = await call(env, o, "GET", `/v1/post/q?${new URLSearchParams({ sessionId: s.id, body: "Which note covers the pump valve?" })}`);
    if (q.status !== 200) fail(`${o.name} session ${s.id}: question answered ${q.status}`);
    else {
      s.posts += 2;
      const at = await call(env, o, "GET", `/v1/post/attachment/${q.body.answer.id}`);
      for (const x of at.body) if (!ready.has(x.docId) || listed.get(x.docId)?.corpusId !== s.corpusId) fail(`${o.name} session ${s.id}: cites ${x.docId}, not a READY document of its corpus`);
    }
  }
}

export async function checkDoc(env: Env, o: OrgModel, m: DocModel, listed: any, fail: Fail, tiles: Tile[]) {
  const got = await call(env, o, "GET", `/v1/doc/${m.id}`);
  const what = `${o.name} document ${m.id} (${m.state}${m.uncertain ? `, cut ${m.uncertain}` : ""})`;
  if (got.status === 200 && !listed) fail(`${what}: GET answers 200 but the listing leaves it out`);
  if (!m.uncertain) {
    if (m.state === "deleted" ? got.status !== 404 : got.status !== 200) return fail(`${what}: GET answers ${got.status}`);
  }
  if (got.status === 404) {
    m.state = "deleted";
    return;
  }
  const d = got.body;
  const expected = m.uncertain ? ["AWAITING_UPLOAD", "READY", "FAILED"]
    : { awaiting: ["AWAITING_UPLOAD"], committed: ["READY", "FAILED"], refused: ["FAILED"], deleted: [] }[m.state];
  if (!expected.includes(d.status)) fail(`${what}: status ${d.status}`);
  if (m.ready && !m.uncertain && d.status !== "READY") fail(`${what}: READY before, ${d.status} now (${d.statusMsg ?? ""})`);
  m.ready = d.status === "READY";
  if (d.status === "FAILED" && !d.statusMsg) fail(`${what}: FAILED without statusMsg`);
  if (d.status === "FAILED") env.seen[`FAILED: ${String(d.statusMsg).slice(0, 50)}`] = (env.seen[`FAILED: ${String(d.statusMsg).slice(0, 50)}`] ?? 0) + 1;
  if (!m.uncertain && d.filename !== m.filename) fail(`${what}: filename ${d.filename}, acknowledged ${m.filename}`);
  env.seen[`checked ${d.status}${m.uncertain ? " cut" : ""}`] = (env.seen[`checked ${d.status}${m.uncertain ? " cut" : ""}`] ?? 0) + 1;
  if (d.status === "READY") {
    const u = await call(env, o, "GET", `/v1/doc/${m.id}/download-url`);
    const bytes = u.status === 200 ? new Uint8Array(await (await fetch(env.base + new URL(u.body.url).pathname + new URL(u.body.url).search)).arrayBuffer()) : undefined;
    const h = bytes && sha(bytes);
    if (!h || !m.candidates.has(h)) fail(`${what}: download-url ${u.status} serves bytes ${h} not among ${[...m.candidates.keys()]}`);
    else if (d.size !== bytes!.byteLength) fail(`${what}: size ${d.size}, ${bytes!.byteLength} bytes uploaded`);
    else m.candidates = new Map([[h, bytes!.byteLength]]);
    const c = await call(env, o, "GET", `/v1/chunk/q?documentId=${m.id}`);
    if (c.status !== 200 || !c.body.items.length) fail(`${what}: chunk search ${c.status} with ${c.body?.items?.length} chunks`);
    const sum = await call(env, o, "GET", `/v1/doc/${m.id}/summary`);
    if (sum.status !== 200 || !String(sum.body).trim()) fail(`${what}: summary ${sum.status}`);
    // Preview rendering cut by the kill resumes: the first and last pages' tiles come (waited for by crash-check.ts).
    if (d.contentType === "application/pdf") {
      const p = await call(env, o, "GET", `/v1/doc/${m.id}/preview-urls?pages=0${d.nbPages > 1 ? `,${d.nbPages - 1}` : ""}`);
      if (p.status !== 200) fail(`${what}: preview-urls answers ${p.status}`);
      else for (const t of p.body.items) tiles.push({ what: `${what} page ${t.page} ${t.size}`, url: new URL(t.url), documentId: m.id });
    }
  }
  m.filename = d.filename;
  if (m.uncertain) {
    m.state = d.status === "AWAITING_UPLOAD" ? "awaiting" : "committed";
    // A cut PUT's URL is tried again (crash-ops.ts); a cut replacement's URL was never seen.
    if (m.uncertain !== "put" || m.state !== "awaiting") [m.uploadPath, m.sent] = [undefined, undefined];
    m.loose = m.state === "awaiting";
    m.uncertain = undefined;
  }
}
