/**
 * Soak test for resource leaks: one real server (`kbqa serve --port 0`, temporary data
 * directory, as the tests start it) under a steady mixed workload of two organizations over
 * HTTP for N minutes, sampling the server process and its data directory every interval.
 *
 *   bun scripts/soak.ts [minutes=20] [intervalSeconds=30] [--keep] [-- server flags…]
 *
 * The workload keeps its live data about constant (each actor keeps 2 corpora of 3–7 documents
 * and at most 2 sessions per corpus, and deletes as much as it adds), so that what grows is
 * leakage or retention, not data. Per actor, each step is one operation: create or delete a
 * corpus, upload a text, markdown or PDF document (init, PUT, commit, poll until READY; now and
 * then a tampered-signature PUT first and a replayed PUT after), replace one, delete one, ask
 * in a session (plain, streamed, or streamed and cut off by the client), list and search,
 * fetch download and preview URLs and their bytes, mint and revoke an access token, switch to a
 * freshly minted JWT, and requests that must be refused (bad signatures, invalid bodies, 404s,
 * bad credentials).
 *
 * Sampled: the server's RSS, threads and open descriptors (by kind) from /proc, its worker
 * processes, the data directory's disk usage per part (SQLite file, WAL, LanceDB data,
 * versions, deletions, transactions, indices, blobs: originals, markdown, previews, temporary
 * files), and live and deleted rows per table; and once more after 30 s without requests. At the end, per resource, a least-squares slope
 * against operations over the samples after the warm-up, and a verdict: bounded or growing.
 */
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync, readlinkSync, lstatSync, existsSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { SignJWT } from "jose";
import { startKbqa, type Kbqa, type Org } from "../test/helpers/server.ts";

const dashes = process.argv.indexOf("--");
const own = dashes < 0 ? process.argv.slice(2) : process.argv.slice(2, dashes);
/** Given to `kbqa serve` as they are (e.g. -- --purge-after 0). */
const SERVER_FLAGS = dashes < 0 ? [] : process.argv.slice(dashes + 1);
const args = own.filter((a) => !a.startsWith("--"));
const MINUTES = Number(args[0] ?? 20);
const INTERVAL_S = Number(args[1] ?? 30);
const KEEP = own.includes("--keep");
const ACTORS_PER_ORG = 2;
const IDLE_S = 30;

// ---------------------------------------------------------------- counters

let ops = 0;
let requests = 0;
const seen = new Map<string, number>();
const failures: string[] = [];
const note = (what: string, status: number, ok: number[]) => {
  const key = `${what} ${status}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
  if (!ok.includes(status) && failures.length < 200) failures.push(`${new Date().toISOString()} ${what}: ${status}`);
  return status;
};

// ---------------------------------------------------------------- content

const WORDS = "pump valve leave policy holiday invoice server backup rotation audit budget travel badge laptop window contract refund shipping".split(" ");
let serial = 0;
const rnd = () => Math.random();
const pick = <T>(xs: T[]): T | undefined => (xs.length ? xs[Math.floor(rnd() * xs.length)] : undefined);
const sentence = () => Array.from({ length: 8 + Math.floor(rnd() * 20) }, () => pick(WORDS)).join(" ");

async function content(type: string): Promise<Uint8Array> {
  const n = serial++;
  if (type === "application/pdf") {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 1; p <= 1 + Math.floor(rnd() * 3); p++) {
      const page = doc.addPage([300, 300]);
      page.drawText(`Note ${n} page ${p}`, { x: 20, y: 260, size: 16, font });
      page.drawText(sentence().slice(0, 60), { x: 20, y: 230, size: 9, font });
    }
    return doc.save();
  }
  const body = Array.from({ length: 2 + Math.floor(rnd() * 6) }, () => `The ${sentence()}.`).join("\n\n");
  return new TextEncoder().encode(type === "text/markdown" ? `# Note ${n}\n\n${body}\n` : `Note ${n}: ${body}\n`);
}
const TYPES = ["text/markdown", "text/plain", "application/pdf"];

// ---------------------------------------------------------------- HTTP

interface Doc {
  id: string;
  type: string;
}
interface Corpus {
  id: string;
  docs: Doc[];
  sessions: string[];
}
interface Actor {
  org: Org;
  token: string;
  corpora: Corpus[];
  name: string;
}

let k: Kbqa;
let stopped = false;

async function call(a: Actor | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const h: Record<string, string> = a ? { authorization: `Bearer ${a.token}`, ...headers } : { ...headers };
  if (body !== undefined && !h["content-type"]) h["content-type"] = "application/json";
  requests++;
  const r = await fetch(k.url + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await r.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: r.status, body: json, headers: r.headers };
}
const rel = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
async function raw(method: string, url: string, init: RequestInit = {}) {
  requests++;
  const r = await fetch(k.url + rel(url), { method, ...init, signal: AbortSignal.timeout(60_000) });
  await r.arrayBuffer();
  return r.status;
}
const tamper = (url: string) => url.replace(/(X-Kbqa-Signature=)([0-9a-fA-F])/, (_, p, c) => p + (c === "0" ? "1" : "0"));

async function waitReady(a: Actor, id: string): Promise<string> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const s = await call(a, "GET", `/v1/doc/${id}/status`);
    if (s.status !== 200) return `status ${s.status}`;
    if (s.body.status === "READY" || s.body.status === "FAILED") return s.body.status;
    await Bun.sleep(50);
  }
  return "timeout";
}

// ---------------------------------------------------------------- operations

async function createCorpus(a: Actor) {
  const r = await call(a, "POST", "/v1/corpus/", { name: `c${serial++}`, description: "soak" });
  if (note("corpus create", r.status, [200]) === 200) a.corpora.push({ id: r.body.id, docs: [], sessions: [] });
}

async function deleteCorpus(a: Actor) {
  const c = a.corpora.shift()!;
  note("corpus delete", (await call(a, "DELETE", `/v1/corpus/${c.id}`)).status, [200]);
}

async function upload(a: Actor, c: Corpus) {
  const type = pick(TYPES)!;
  const ext = type === "application/pdf" ? "pdf" : type === "text/markdown" ? "md" : "txt";
  const init = await call(a, "POST", "/v1/doc/init", { corpusId: c.id, filename: `f${serial}.${ext}`, contentType: type, tags: ["soak"] });
  if (note("doc init", init.status, [200]) !== 200) return;
  const id = init.body.document.id as string;
  const bytes = await content(type);
  if (rnd() < 0.2) note("PUT tampered", await raw("PUT", tamper(init.body.uploadUrl), { headers: { "content-type": type }, body: bytes as BodyInit }), [403]);
  note("PUT", await raw("PUT", init.body.uploadUrl, { headers: { "content-type": type }, body: bytes as BodyInit }), [200]);
  if (rnd() < 0.2) note("PUT replay", await raw("PUT", init.body.uploadUrl, { headers: { "content-type": type }, body: bytes as BodyInit }), [412]);
  note("commit", (await call(a, "POST", `/v1/doc/${id}/commit`)).status, [202]);
  const end = await waitReady(a, id);
  note(`ingest ${type}`, end === "READY" ? 200 : 500, [200]);
  c.docs.push({ id, type });
}

async function replace(a: Actor, c: Corpus) {
  const d = pick(c.docs);
  if (!d) return;
  const init = await call(a, "PUT", `/v1/doc/${d.id}/init`);
  if (note("replace init", init.status, [200]) !== 200) return;
  if (rnd() < 0.8) note("replace PUT", await raw("PUT", init.body.uploadUrl, { headers: { "content-type": d.type }, body: (await content(d.type)) as BodyInit }), [200]);
  note("replace commit", (await call(a, "POST", `/v1/doc/${d.id}/commit`)).status, [202]);
  const end = await waitReady(a, d.id);
  note("replace ingest", end === "READY" ? 200 : 500, [200]);
}

async function deleteDoc(a: Actor, c: Corpus) {
  const d = c.docs.splice(Math.floor(rnd() * c.docs.length), 1)[0];
  if (d) note("doc delete", (await call(a, "DELETE", `/v1/doc/${d.id}`)).status, [200]);
}

async function ask(a: Actor, c: Corpus) {
  if (c.sessions.length === 0 || rnd() < 0.15) {
    const s = await call(a, "POST", "/v1/session/", { corpusIds: [c.id], metadata: { channel: pick(["web", "api"]), n: serial++ } });
    if (note("session create", s.status, [200]) !== 200) return;
    c.sessions.push(s.body.id);
    if (c.sessions.length > 2) note("session delete", (await call(a, "DELETE", `/v1/session/${c.sessions.shift()}`)).status, [200]);
  }
  const sessionId = pick(c.sessions)!;
  const q = `/v1/post/q?${new URLSearchParams({ sessionId, body: `What is the ${pick(WORDS)} ${pick(WORDS)} policy?` })}`;
  const mode = rnd();
  if (mode < 0.6) {
    const r = await call(a, "GET", q);
    note("ask", r.status, [200]);
    if (r.status === 200 && rnd() < 0.3) note("attachment", (await call(a, "GET", `/v1/post/attachment/${r.body.answer.id}`)).status, [200]);
  } else {
    // Streamed: read whole, or cut off by the client after the first bytes.
    const ctl = new AbortController();
    requests++;
    const r = await fetch(k.url + q, { headers: { authorization: `Bearer ${a.token}`, accept: "text/event-stream" }, signal: ctl.signal });
    note("ask stream", r.status, [200]);
    if (mode < 0.8) await r.text();
    else {
      const reader = r.body!.getReader();
      await reader.read().catch(() => {});
      ctl.abort();
      await reader.cancel().catch(() => {});
    }
  }
}

async function reads(a: Actor, c: Corpus) {
  const d = pick(c.docs);
  const which = Math.floor(rnd() * 9);
  if (which === 0) note("doc list", (await call(a, "GET", `/v1/doc/?corpusId=${c.id}&pageSize=20`)).status, [200]);
  else if (which === 1) note("doc q", (await call(a, "GET", `/v1/doc/q?corpusId=${c.id}&q=f*&sort=UPDATED_AT`)).status, [200]);
  else if (which === 2) note("session q", (await call(a, "GET", `/v1/session/q?corpusId=${c.id}&key=channel&value=web`)).status, [200]);
  else if (which === 3) note("chunk q", (await call(a, "GET", `/v1/chunk/q?corpusId=${c.id}&body=true&pageSize=10`)).status, [200]);
  else if (which === 4 && c.sessions.length) note("post list", (await call(a, "GET", `/v1/post/?sessionId=${pick(c.sessions)}`)).status, [200]);
  else if (which === 5) note("corpus list", (await call(a, "GET", `/v1/corpus/?pageSize=50`)).status, [200]);
  else if (which === 6 && d) note("summary", (await call(a, "GET", `/v1/doc/${d.id}/summary`)).status, [200]);
  else if (which === 7) note("usage", (await call(a, "GET", `/v1/usage/all?timeframe=${pick(["Day", "Month"])}`)).status, [200]);
  else if (d) note("doc get", (await call(a, "GET", `/v1/doc/${d.id}`)).status, [200]);
}

async function urls(a: Actor, c: Corpus) {
  const d = pick(c.docs);
  if (!d) return;
  const dl = await call(a, "GET", `/v1/doc/${d.id}/download-url`);
  if (note("download-url", dl.status, [200]) === 200) {
    note("download", await raw("GET", dl.body.url), [200]);
    if (rnd() < 0.3) note("download tampered", await raw("GET", tamper(dl.body.url)), [403]);
  }
  const pdf = c.docs.find((x) => x.type === "application/pdf");
  if (pdf) {
    const pv = await call(a, "GET", `/v1/doc/${pdf.id}/preview-urls?pages=0`);
    if (note("preview-urls", pv.status, [200]) === 200) for (const it of pv.body.items) note("preview", await raw("GET", it.url), [200, 404]);
  }
}

async function refused(a: Actor, c: Corpus) {
  const uuid = crypto.randomUUID();
  const which = Math.floor(rnd() * 8);
  if (which === 0) note("refuse init body", (await call(a, "POST", "/v1/doc/init", { corpusId: "nope", filename: "", contentType: "x/y" })).status, [400]);
  else if (which === 1) note("refuse bad json", (await call(a, "POST", "/v1/session/", "{not json")).status, [400]);
  else if (which === 2) note("refuse 404 doc", (await call(a, "GET", `/v1/doc/${uuid}`)).status, [404]);
  else if (which === 3) note("refuse 404 corpus", (await call(a, "GET", `/v1/corpus/${uuid}`)).status, [404]);
  else if (which === 4) note("refuse bad jwt", (await call(null, "GET", `/v1/corpus/${c.id}`, undefined, { authorization: "Bearer x.y.z" })).status, [403]);
  else if (which === 5) {
    // Signed with the organization's key under a kid nobody registered.
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: "RS256", kid: `nope-${uuid}` }).setSubject("u").setExpirationTime("5m").sign(a.org.privateKey);
    note("refuse unknown kid", (await call(null, "GET", "/v1/auth/whoami", undefined, { authorization: `Bearer ${jwt}` })).status, [403]);
  } else if (which === 6) note("refuse storage", await raw("GET", `${k.url}/storage/orgs/${a.org.orgId}/docs/${uuid}/original?X-Kbqa-Expires=1&X-Kbqa-Signature=00`), [403, 404]);
  else note("refuse empty corpusIds", (await call(a, "POST", "/v1/session/", { corpusIds: [] })).status, [400]);
}

async function accessToken(a: Actor, c: Corpus) {
  const t = await call(a, "POST", "/v1/auth/access-token", { scope: ["corpus:read", "session:read", "post:read"], ttl: 60, userId: `visitor-${serial++}` });
  if (note("token create", t.status, [200]) !== 200) return;
  note("token use", (await call(null, "GET", `/v1/corpus/${c.id}`, undefined, { "x-access-token": t.body.token })).status, [200]);
  note("token revoke", (await call(a, "DELETE", `/v1/auth/access-token/${t.body.token}`)).status, [200]);
  note("token revoked", (await call(null, "GET", `/v1/corpus/${c.id}`, undefined, { "x-access-token": t.body.token })).status, [403]);
}

async function actor(a: Actor) {
  while (!stopped) {
    try {
      if (a.corpora.length < 2) await createCorpus(a);
      else {
        const c = pick(a.corpora)!;
        const x = rnd();
        if (x < 0.012) await deleteCorpus(a);
        else if (x < 0.2) await (c.docs.length < 7 ? upload(a, c) : deleteDoc(a, c));
        else if (x < 0.3) await (c.docs.length > 3 ? deleteDoc(a, c) : upload(a, c));
        else if (x < 0.37) await replace(a, c);
        else if (x < 0.52) await ask(a, c);
        else if (x < 0.67) await reads(a, c);
        else if (x < 0.75) await urls(a, c);
        else if (x < 0.88) await refused(a, c);
        else if (x < 0.92) await accessToken(a, c);
        else if (x < 0.94) a.token = await a.org.jwt({}, { sub: pick(["alice", "bob"]), expSeconds: 3600 });
        else await reads(a, c);
      }
      ops++;
    } catch (e) {
      if (!stopped) failures.push(`${new Date().toISOString()} ${a.name}: ${String(e).slice(0, 300)}`);
      await Bun.sleep(200);
    }
  }
}

// ---------------------------------------------------------------- sampling

type Sample = Record<string, number>;

function procStatus(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, "utf8").split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  return out;
}
const kb = (v: string | undefined) => Number((v ?? "0").split(/\s+/)[0]);

function children(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {}
  }
  return out;
}

function fds(pid: number, dataDir: string): Sample {
  const s: Sample = { fd: 0, "fd.socket": 0, "fd.pipe": 0, "fd.anon": 0, "fd.sqlite": 0, "fd.lance": 0, "fd.blobs": 0, "fd.deleted": 0, "fd.other": 0 };
  for (const e of readdirSync(`/proc/${pid}/fd`)) {
    let target = "";
    try {
      target = readlinkSync(`/proc/${pid}/fd/${e}`);
    } catch {
      continue;
    }
    s.fd!++;
    if (target.endsWith(" (deleted)")) s["fd.deleted"]!++;
    if (target.startsWith("socket:")) s["fd.socket"]!++;
    else if (target.startsWith("pipe:")) s["fd.pipe"]!++;
    else if (target.startsWith("anon_inode:")) s["fd.anon"]!++;
    else if (target.startsWith(join(dataDir, "kbqa.sqlite"))) s["fd.sqlite"]!++;
    else if (target.startsWith(join(dataDir, "lance"))) s["fd.lance"]!++;
    else if (target.startsWith(join(dataDir, "blobs"))) s["fd.blobs"]!++;
    else s["fd.other"]!++;
  }
  return s;
}

/** Disk usage (allocated blocks) and file counts of the data directory, by part. */
function disk(dataDir: string): Sample {
  const s: Sample = {};
  const add = (part: string, bytes: number) => {
    s[`disk.${part}`] = (s[`disk.${part}`] ?? 0) + bytes;
    s[`files.${part}`] = (s[`files.${part}`] ?? 0) + 1;
  };
  const partOf = (rel: string): string => {
    if (/\.tmp-\d+-/.test(rel)) return "temp";
    if (rel === "kbqa.sqlite") return "sqlite";
    if (rel === "kbqa.sqlite-wal") return "wal";
    if (rel === "kbqa.sqlite-shm") return "shm";
    const p = rel.split("/");
    if (p[0] === "lance") {
      const sub = p.find((x) => x.startsWith("_")) ?? (p.includes("data") ? "data" : "other");
      return `lance.${sub.replace(/^_/, "")}`;
    }
    if (p[0] === "blobs") {
      const last = p[p.length - 1]!;
      if (last === "original") return "blobs.original";
      if (p.includes("preview")) return "blobs.preview";
      if (last.endsWith(".md")) return "blobs.markdown";
      return "blobs.other";
    }
    return "other";
  };
  const walk = (dir: string, rel: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(dir, e.name), r);
      else {
        try {
          add(partOf(r), lstatSync(join(dir, e.name)).blocks * 512);
        } catch {}
      }
    }
  };
  walk(dataDir, "");
  return s;
}

const ROW_TABLES = ["corpora", "documents", "chunks", "sessions", "posts", "post_citations", "jobs", "preview_jobs", "upload_grants", "access_tokens", "usage_events", "vector_drops", "chunk_drops", "corpus_drops", "converted", "session_meta", "session_corpora"];
function rows(dataDir: string): Sample {
  const s: Sample = {};
  const db = new Database(join(dataDir, "kbqa.sqlite"), { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    for (const t of ROW_TABLES) {
      const cols = db.query<{ name: string }, []>(`PRAGMA table_info(${t})`).all().map((c) => c.name);
      if (!cols.length) continue;
      if (cols.includes("deleted_at")) {
        const r = db.query<{ live: number; del: number }, []>(`SELECT count(*) FILTER (WHERE deleted_at IS NULL) AS live, count(*) FILTER (WHERE deleted_at IS NOT NULL) AS del FROM ${t}`).get()!;
        s[`rows.${t}.live`] = r.live;
        s[`rows.${t}.deleted`] = r.del;
      } else s[`rows.${t}`] = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}`).get()!.n;
    }
  } finally {
    db.close();
  }
  return s;
}

async function lanceRows(dataDir: string): Promise<Sample> {
  const s: Sample = {};
  const dir = join(dataDir, "lance");
  if (!existsSync(dir)) return s;
  const lancedb = await import("@lancedb/lancedb");
  const conn = await lancedb.connect(dir);
  try {
    for (const name of await conn.tableNames()) {
      const t = await conn.openTable(name);
      s["rows.vectors"] = (s["rows.vectors"] ?? 0) + (await t.countRows());
      s["lance.version"] = Math.max(s["lance.version"] ?? 0, await t.version());
      t.close();
    }
  } finally {
    conn.close();
  }
  return s;
}

async function sample(t0: number): Promise<Sample> {
  const pid = k.proc.pid;
  const st = procStatus(pid);
  const kids = children(pid);
  let kidsRss = 0;
  for (const c of kids) {
    try {
      kidsRss += kb(procStatus(c).VmRSS);
    } catch {}
  }
  return {
    t: (performance.now() - t0) / 1000,
    ops,
    requests,
    "rss.MiB": kb(st.VmRSS) / 1024,
    "rss.anon.MiB": kb(st.RssAnon) / 1024,
    threads: Number(st.Threads),
    "threads.tokio": readdirSync(`/proc/${pid}/task`).filter((t) => {
      try {
        return readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").startsWith("tokio");
      } catch {
        return false;
      }
    }).length,
    children: kids.length,
    "children.rss.MiB": kidsRss / 1024,
    ...fds(pid, k.dataDir),
    ...disk(k.dataDir),
    ...rows(k.dataDir),
    ...(await lanceRows(k.dataDir)),
    load1: Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]),
  };
}

// ---------------------------------------------------------------- verdict

function fit(xs: number[], ys: number[]) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  const slope = sxx ? sxy / sxx : 0;
  const r2 = sxx && syy ? (sxy * sxy) / (sxx * syy) : 0;
  return { slope, r2 };
}

/** Absolute change below which a series counts as flat, whatever its slope. */
const floorOf = (key: string) =>
  key.startsWith("disk.") ? 1 << 20 : key.endsWith("MiB") ? 16 : key.startsWith("fd") || key === "threads" || key === "children" ? 3 : key.startsWith("files.") ? 20 : key.startsWith("rows.") ? 50 : 1;

function verdict(samples: Sample[]) {
  // Warm-up: the first fifth of the run (caches, JIT, LanceDB's first indexes) is left out of the fit.
  const from = Math.max(1, Math.floor(samples.length / 5));
  const tail = samples.slice(from);
  const keys = [...new Set(samples.flatMap((s) => Object.keys(s)))].filter((x) => !["t", "ops", "requests", "load1"].includes(x)).sort();
  const out: string[] = [];
  out.push(`\nVerdict over samples ${from}–${samples.length - 1} (ops ${tail[0]?.ops}–${tail.at(-1)?.ops}; the first fifth is warm-up):`);
  out.push(pad(["resource", "start", "end", "min", "max", "slope / 1k ops", "r²", "verdict"], [34, 12, 12, 12, 12, 15, 6, 0]));
  for (const key of keys) {
    const ys = tail.map((s) => s[key] ?? 0);
    const xs = tail.map((s) => s.ops!);
    const { slope, r2 } = fit(xs, ys);
    const span = (xs.at(-1)! - xs[0]!) || 1;
    const growth = slope * span;
    const third = Math.max(1, Math.floor(ys.length / 3));
    const early = Math.max(...ys.slice(0, third));
    const late = Math.min(...ys.slice(-third));
    const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
    const growing = growth > floorOf(key) && growth > 0.1 * Math.abs(mean) && late > early && r2 > 0.5;
    const first = samples[0]![key] ?? 0;
    out.push(pad([key, num(first), num(samples.at(-1)![key] ?? 0), num(Math.min(...ys)), num(Math.max(...ys)), num(slope * 1000), r2.toFixed(2), growing ? "GROWING" : "bounded"], [34, 12, 12, 12, 12, 15, 6, 0]));
  }
  return out.join("\n");
}

const num = (v: number) => (Math.abs(v) >= 1e5 ? v.toExponential(2) : Number.isInteger(v) ? String(v) : v.toFixed(2));
const pad = (cols: string[], w: number[]) => cols.map((c, i) => (w[i] ? c.padStart(i ? w[i]! : 0).padEnd(i ? 0 : w[i]!) : " " + c)).join(" ");

// ---------------------------------------------------------------- main

const SHOWN = ["t", "ops", "requests", "rss.MiB", "rss.anon.MiB", "threads", "fd", "fd.lance", "fd.socket", "children", "disk.sqlite", "disk.wal", "files.lance.versions", "disk.lance.data", "files.lance.deletions", "files.lance.transactions", "files.lance.indices", "disk.blobs.original", "disk.blobs.preview", "files.temp", "rows.documents.live", "rows.documents.deleted", "rows.vectors", "load1"];
const short = (key: string) => key.replace("files.lance.", "L.").replace("disk.", "").replace("rows.documents.", "docs.").replace("blobs.", "b.");

k = await startKbqa({ keepData: KEEP, env: { RUST_LOG: "error" }, flags: SERVER_FLAGS });
console.log(`server pid ${k.proc.pid}${SERVER_FLAGS.length ? ` (${SERVER_FLAGS.join(" ")})` : ""}, data ${k.dataDir}; ${MINUTES} min, a sample every ${INTERVAL_S} s, ${ACTORS_PER_ORG} actors per organization`);
const orgs = [await k.org("soak-a"), await k.org("soak-b")];
const actors: Actor[] = [];
for (const org of orgs) for (let i = 0; i < ACTORS_PER_ORG; i++) actors.push({ org, token: await org.jwt({}, { expSeconds: 3 * 3600 }), corpora: [], name: `${org.orgId.slice(0, 8)}#${i}` });

// A server that dies under the workload is the finding itself: say how, with its last words,
// rather than failing later on a missing /proc entry.
void k.proc.exited.then((code) => {
  if (stopped) return;
  console.log(`\nserver died after ${ops} operations: exit code ${code}, signal ${k.proc.signalCode ?? "none"}; its stderr ends:\n${k.stderr().slice(-4000)}`);
  if (failures.length) console.log(`\n${failures.length} unexpected answers or errors (first 30):\n${failures.slice(0, 30).join("\n")}`);
  process.exit(1);
});

const t0 = performance.now();
const samples: Sample[] = [await sample(t0)];
console.log(SHOWN.map(short).join("\t"));
const line = (s: Sample) =>
  SHOWN.map((key) => {
    const v = s[key] ?? 0;
    return key.startsWith("disk.") ? (v / 2 ** 20).toFixed(1) + "M" : num(Math.round(v * 10) / 10);
  }).join("\t");
console.log(line(samples[0]!));
const running = actors.map(actor);
const end = t0 + MINUTES * 60_000;
while (performance.now() < end) {
  await Bun.sleep(Math.min(INTERVAL_S * 1000, end - performance.now()));
  const s = await sample(t0);
  samples.push(s);
  console.log(line(s));
}
stopped = true;
await Promise.all(running);
console.log(verdict(samples));
// Idle: what the server gives back once the work stops (tokio's blocking threads retire after
// 10 s idle, the idle maintenance trims memory after 5 s, workers exit after --worker-idle-ms).
await Bun.sleep(IDLE_S * 1000);
const idle = await sample(t0);
console.log(`\nAfter ${IDLE_S} s idle:\n${SHOWN.map(short).join("\t")}\n${line(idle)}`);
console.log(`\n${ops} operations, ${requests} requests in ${((performance.now() - t0) / 60_000).toFixed(1)} min; answers by operation and status:`);
console.log([...seen].sort().map(([key, n]) => `${key}: ${n}`).join(", "));
if (failures.length) console.log(`\n${failures.length} unexpected answers or errors (first 30):\n${failures.slice(0, 30).join("\n")}`);
const jsonOut = join(import.meta.dir, "..", ".tmp", `soak-${Date.now()}.json`);
await Bun.write(jsonOut, JSON.stringify(samples));
console.log(`samples written to ${jsonOut}`);
const code = await k.stop();
console.log(`server exited ${code}${KEEP ? `; data kept in ${k.dataDir}` : ""}`);
