/**
 * The data a fuzz run needs so that its requests reach deep code, not only the 404 path: two
 * organizations, and for each kind of id a live one to read ("keep"), live ones that mutating
 * operations may change or delete ("victim"), one deleted, one of the other organization, and
 * documents in every reachable state. `snapshot()` reads the keep resources back, to prove the
 * run lost none of the organization's valid data.
 */
import { makePdf } from "../posts/pdf.ts";
import { ingestDocument } from "./ingest.ts";
import { startKbqa, waitFor, type Kbqa, type Org } from "./server.ts";

export type Kind = "corpus" | "doc" | "chunk" | "session" | "post" | "agent" | "token" | "user";

export interface Ids {
  keep: string;
  /** Live ids that one mutating operation owns, by operation ("PATCH /v1/doc/{id}"). */
  victim: Record<string, string>;
  deleted: string;
  other: string;
  /** More live ids of the kind with something special about them (document states, core agent). */
  odd: string[];
}

export interface World extends AsyncDisposable {
  k: Kbqa;
  a: Org;
  b: Org;
  jwtA: string;
  /** A JWT of organization A the server has not seen yet (from a pool minted at the start). */
  freshJwt(): string;
  /** An access token of organization A with the widget's scope set. */
  widgetToken: string;
  /** Access tokens of organization A with one scope only: one of them covers nothing a given operation needs. */
  narrowTokens: { config: string; usage: string };
  spec: { paths: Record<string, Record<string, OpenApiOp>> };
  /** Presigned URLs (absolute): a download of the kept document, an upload not used yet. */
  storage: { download: string; upload: string };
  ids: Record<Kind, Ids>;
  snapshot(): Promise<string>;
}

export interface OpenApiOp {
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
export type Schema = Record<string, any>;

const WIDGET_SCOPE = ["corpus:read", "session:read", "session:create", "post:read", "post:create"];

async function ok<T = any>(r: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const got = await r;
  if (got.status >= 300) throw new Error(`fuzz world: ${what} → ${got.status} ${JSON.stringify(got.body).slice(0, 300)}`);
  return got.body;
}

export async function startWorld(): Promise<World> {
  const k = await startKbqa();
  try {
    return await build(k);
  } catch (e) {
    await k.stop();
    throw e;
  }
}

async function build(k: Kbqa): Promise<World> {
  const [a, b] = await Promise.all([k.org("fuzz-a"), k.org("fuzz-b")]);
  const jwtA = await a.jwt();
  const api = (o: Org, m: string, p: string, body?: unknown) => ok(o.api(m, p, body), `${m} ${p}`);
  const corpus = async (o: Org, name: string) => (await api(o, "POST", "/v1/corpus/", { name })).id as string;
  const md = (n: string) => `# Topic ${n}\n\nThe harbour of ${n} opens at dawn.\n\n# Weather ${n}\n\nIt rains in ${n} on Tuesdays.\n`;
  const ingest = (o: Org, c: string, n: string) => ingestDocument(k, o, c, `${n}.md`, md(n), "text/markdown", { tags: ["t1", n], metadata: { n } }, 60_000);
  const chunksOf = async (o: Org, d: string) => (await api(o, "GET", `/v1/chunk/q?documentId=${d}`)).items.map((c: { id: string }) => c.id) as string[];

  const [c1, c2, c3, c4, cb] = await Promise.all([corpus(a, "keep"), corpus(a, "patch"), corpus(a, "delete"), corpus(a, "deleted"), corpus(b, "other")]);
  // The documents that operations change live apart: the kept answer cites only kept documents.
  const cv = await corpus(a, "victims");
  // Sequential: ingestion is one queue anyway, and parallel polling only adds load.
  const d1 = await ingest(a, c1, "keep");
  const d2 = await ingest(a, cv, "patched");
  const d3 = await ingest(a, cv, "replaced");
  const d5 = await ingest(a, cv, "removed");
  const d6 = await ingest(a, cv, "gone");
  const db = await ingest(b, cb, "other");
  // Pages to preview: the markdown documents have none.
  const pdf = await ingestDocument(k, a, c1, "paged.pdf", await makePdf([["Page one of the harbour."], ["Page two of the weather."]]), "application/pdf", {}, 60_000);
  // Uploaded, not committed: the commit operation's own document.
  const d4init = await api(a, "POST", "/v1/doc/init", { corpusId: c1, filename: "commit.md", contentType: "text/markdown" });
  const put = await fetch(d4init.uploadUrl.startsWith("http") ? d4init.uploadUrl : k.url + d4init.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body: md("committed") });
  if (put.status !== 200) throw new Error(`fuzz world: upload → ${put.status}`);
  const awaiting = (await api(a, "POST", "/v1/doc/init", { corpusId: c1, filename: "never.md", contentType: "text/markdown" })).document.id;
  // Declared PDF, uploaded text: the commit refuses it and the document ends FAILED.
  const failedInit = await api(a, "POST", "/v1/doc/init", { corpusId: c1, filename: "bad.pdf", contentType: "application/pdf" });
  await fetch(failedInit.uploadUrl, { method: "PUT", headers: { "content-type": "application/pdf" }, body: "not a pdf" });
  await a.api("POST", `/v1/doc/${failedInit.document.id}/commit`);
  await waitFor(async () => (await a.api("GET", `/v1/doc/${failedInit.document.id}`)).body.status === "FAILED", "FAILED document");

  const [ch1, ch2, ch3, ch6, chb] = await Promise.all([chunksOf(a, d1), chunksOf(a, d2), chunksOf(a, d3), chunksOf(a, d6), chunksOf(b, db)]);
  if (ch2.length < 2) throw new Error("fuzz world: the patched document needs two chunks");
  await api(a, "DELETE", `/v1/chunk/${ch3[0]}`);

  const session = async (o: Org, c: string) => (await api(o, "POST", "/v1/session/", { corpusIds: [c], metadata: { k: "v" } })).id as string;
  const [s1, s2, s3, s4, sAsk, sb] = await Promise.all([session(a, c1), session(a, c1), session(a, c1), session(a, c1), session(a, c1), session(b, cb)]);
  const ask = async (o: Org, s: string) => (await api(o, "GET", `/v1/post/q?sessionId=${s}&body=When+does+the+harbour+open`)) as { query: { id: string }; answer: { id: string } };
  const p1 = await ask(a, s1);
  const p2 = await ask(a, s2);
  const p3 = await ask(a, s2);
  const p4 = await ask(a, sAsk);
  const pb = await ask(b, sb);
  await api(a, "DELETE", `/v1/post/${p3.answer.id}`);

  const agent = async (o: Org, name: string) => (await api(o, "POST", "/v1/agent/", { name, topK: 5 })).id as string;
  const [ag1, ag2, ag3, ag4, agb] = await Promise.all([agent(a, "keep"), agent(a, "patch"), agent(a, "delete"), agent(a, "deleted"), agent(b, "other")]);
  const core = (await api(a, "GET", "/v1/agent/")).find((x: { default: boolean }) => x.default).id as string;

  const token = async (o: Org, scope: string[]) => (await api(o, "POST", "/v1/auth/access-token", { scope, userId: "visitor-1" })).token as string;
  const [widgetToken, config, usage, tVictim, tDeleted, tb] = await Promise.all([
    token(a, WIDGET_SCOPE), token(a, ["config:read"]), token(a, ["usage:read"]), token(a, ["corpus:read"]), token(a, ["corpus:read"]), token(b, ["corpus:read"]),
  ]);

  // The widget's visitor sees only its own sessions and posts: a session and an exchange of its own.
  const visitor = { "x-access-token": widgetToken };
  const sWidget = (await ok(k.request("POST", "/v1/webhook/widget/init", { corpusIds: [c1] }, visitor), "widget init")).id as string;
  const pWidget = await ok(k.request("POST", "/v1/webhook/widget/q", { sessionId: sWidget, body: "When does the harbour open?" }, visitor), "widget q");

  const download = (await api(a, "GET", `/v1/doc/${d1}/download-url`)).url as string;
  const upload = (await api(a, "POST", "/v1/doc/init", { corpusId: c1, filename: "storage.md", contentType: "text/markdown" })).uploadUrl as string;

  await Promise.all([
    api(a, "DELETE", `/v1/corpus/${c4}`), api(a, "DELETE", `/v1/doc/${d6}`), api(a, "DELETE", `/v1/session/${s4}`),
    api(a, "DELETE", `/v1/agent/${ag4}`), api(a, "DELETE", `/v1/auth/access-token/${tDeleted}`),
  ]);

  const spec = await ok(k.request("GET", "/openapi.json"), "GET /openapi.json");
  const fresh = await Promise.all(Array.from({ length: 200 }, (_, i) => a.jwt({ fuzz: i })));
  const freshJwt = () => {
    const t = fresh.pop();
    if (!t) throw new Error("fuzz world: out of fresh JWTs");
    return t;
  };
  const ids: Record<Kind, Ids> = {
    corpus: { keep: c1, victim: { "PATCH /v1/corpus/{corpusId}": c2, "PUT /v1/corpus/{corpusId}": c2, "DELETE /v1/corpus/{corpusId}": c3 }, deleted: c4, other: cb, odd: [] },
    doc: {
      keep: d1,
      victim: {
        "PATCH /v1/doc/{id}": d2, "PUT /v1/doc/{id}/init": d3, "POST /v1/doc/{id}/commit": d4init.document.id, "DELETE /v1/doc/{id}": d5,
        "GET /v1/doc/{id}/preview-urls": pdf, "GET /v1/post/attachment/{docId}/preview-urls": pdf,
      },
      deleted: d6, other: db, odd: [awaiting, failedInit.document.id],
    },
    chunk: { keep: ch1[0]!, victim: { "PATCH /v1/chunk/{chunkId}": ch2[0]!, "DELETE /v1/chunk/{chunkId}": ch2[1]! }, deleted: ch3[0]!, other: chb[0]!, odd: [ch6[0]!] },
    session: { keep: s1, victim: { "PATCH /v1/session/{sessionId}": s2, "DELETE /v1/session/{sessionId}": s3, ask: sAsk, widget: sWidget }, deleted: s4, other: sb, odd: [] },
    post: { keep: p1.answer.id, victim: { "DELETE /v1/post/{postId}": p2.query.id, widget: pWidget.answer.id }, deleted: p3.answer.id, other: pb.answer.id, odd: [p4.query.id] },
    agent: { keep: ag1, victim: { "PATCH /v1/agent/{agentId}": ag2, "DELETE /v1/agent/{agentId}": ag3 }, deleted: ag4, other: agb, odd: [core] },
    token: { keep: widgetToken, victim: { "DELETE /v1/auth/access-token/{token}": tVictim }, deleted: tDeleted, other: tb, odd: [] },
    user: { keep: "user-1", victim: {}, deleted: "nobody", other: "visitor-1", odd: [] },
  };

  const snapshot = async () => {
    const reads = [
      `/v1/corpus/${c1}`, `/v1/doc/${d1}`, `/v1/doc/${d1}/summary`, `/v1/chunk/q?documentId=${d1}&body=true`, `/v1/chunk/${ch1[0]}`,
      `/v1/session/${s1}`, `/v1/post/?sessionId=${s1}`, `/v1/post/attachment/${p1.answer.id}`, `/v1/agent/${ag1}`,
    ];
    const theirs = [`/v1/corpus/${cb}`, `/v1/doc/${db}`, `/v1/chunk/${chb[0]}`, `/v1/session/${sb}`, `/v1/post/${pb.answer.id}`, `/v1/agent/${agb}`];
    const got = await Promise.all([
      ...reads.map(async (p) => [p, (await a.api("GET", p)).body] as const),
      ...theirs.map(async (p) => [`other organization: ${p}`, (await b.api("GET", p)).body] as const),
    ]);
    return JSON.stringify(got, null, 1);
  };

  const abs = (u: string) => (u.startsWith("http") ? u : k.url + u);
  return { k, a, b, jwtA, freshJwt, widgetToken, narrowTokens: { config, usage }, spec, storage: { download: abs(download), upload: abs(upload) }, ids, snapshot, [Symbol.asyncDispose]: () => k.stop().then(() => {}) };
}
