/**
 * Sends refused requests to mutating operations and checks, after every 4xx or 5xx, that neither
 * organization's observable state (org-state.ts) moved. The requests are the fuzz generator's
 * every case (bad path ids: unknown, deleted, another organization's, other kinds; bad query and
 * body fields; malformed bodies and content types; missing credential or scope) and the
 * schema's per-field probes (bad-inputs.ts), minus the valid requests. A request that is
 * accepted instead is not judged here (the fuzz does): the state it leaves is the next baseline.
 */
import type { Database } from "bun:sqlite";
import { probes } from "./bad-inputs.ts";
import { generate, type Case, type Op } from "./fuzz-cases.ts";
import { send } from "./fuzz-run.ts";
import { openReadOnly, orgStates, type OrgStates } from "./org-state.ts";
import { rng } from "./seeded.ts";
import type { World } from "./fuzz-world.ts";

/** The operations that write: every POST/PUT/PATCH/DELETE, and the question asked by GET. */
export const WRITES = (key: string) => /^(POST|PUT|PATCH|DELETE) /.test(key) || /^GET \/v1\/(post|webhook\/widget)\/q$/.test(key);

/**
 * A refused request with a change the README documents: `documented` turns the state before
 * into the one expected after, and anything else that moved is still a defect.
 */
export interface Refusal extends Case {
  documented?: (before: OrgStates, answer: { status: number; json?: any }, after: OrgStates) => OrgStates;
  /** The spec refuses this request: accepting it is a defect too. */
  mustRefuse?: boolean;
}

export interface Defect {
  request: string;
  status: number;
  answer: string;
  changed: string[];
}

/** Where two JSON values differ ("a.documents.<id>[0].filename: "x" → "y""), at most `max` places. */
export function differences(x: unknown, y: unknown, at = "", out: string[] = [], max = 6): string[] {
  if (out.length >= max || Bun.deepEquals(x, y)) return out;
  const obj = (v: unknown) => v !== null && typeof v === "object";
  if (obj(x) && obj(y) && Array.isArray(x) === Array.isArray(y)) {
    const keys = new Set([...Object.keys(x as object), ...Object.keys(y as object)]);
    for (const k of keys) differences((x as any)[k], (y as any)[k], Array.isArray(x) ? `${at}[${k}]` : at ? `${at}.${k}` : k, out, max);
    return out;
  }
  out.push(`${at}: ${JSON.stringify(x)?.slice(0, 200)} → ${JSON.stringify(y)?.slice(0, 200)}`);
  return out;
}

/** Extra refusals the generator cannot know: the spec's own 400 and 409 cases. */
function specCases(w: World, op: Op): Case[] {
  const auth = { authorization: `Bearer ${w.jwtA}`, "content-type": "application/json" };
  const c = (label: string, method: string, url: string, body?: unknown): Case => ({ op: op.key, label, method, url, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  const core = w.ids.agent.odd[0]!;
  switch (op.key) {
    case "POST /v1/agent/":
      return [c("name of a core agent (409)", "POST", "/v1/agent/", { name: "Platform Default", topK: 3 }), c("name of an own agent (409)", "POST", "/v1/agent/", { name: "keep", topK: 3 })];
    case "PATCH /v1/agent/{agentId}": {
      const id = w.ids.agent.victim[op.key]!;
      return [
        c("core agent (400)", "PATCH", `/v1/agent/${core}`, { description: "x" }),
        c("rename onto an own agent (409)", "PATCH", `/v1/agent/${id}`, { name: "keep", description: "changed" }),
        c("rename onto a core name (409)", "PATCH", `/v1/agent/${id}`, { name: "Platform Legal", topK: 9 }),
        c("reset names a field outside the list (400)", "PATCH", `/v1/agent/${id}`, { description: "changed", reset: ["topK"] }),
        c("good fields, bad temperature (400)", "PATCH", `/v1/agent/${id}`, { description: "changed", temperature: 2 }),
      ];
    }
    case "DELETE /v1/agent/{agentId}":
      return [c("core agent (400)", "DELETE", `/v1/agent/${core}`)];
    case "PUT /v1/doc/{id}/init":
      // Not READY or FAILED: 409 (the awaiting document is among the kind's odd ids; so is a processing one here).
      return [c("awaiting upload (409)", "PUT", `/v1/doc/${w.ids.doc.odd[0]}/init`)];
    case "PATCH /v1/doc/{id}": {
      const id = w.ids.doc.victim[op.key]!;
      return [
        c("good filename, 33 tags (400)", "PATCH", `/v1/doc/${id}`, { filename: "renamed.md", tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }),
        c("good filename, 65-character tag (400)", "PATCH", `/v1/doc/${id}`, { filename: "renamed.md", tags: ["t".repeat(65)] }),
        c("good metadata, bad docCreate (400)", "PATCH", `/v1/doc/${id}`, { metadata: { changed: true }, docCreate: "yesterday" }),
        // Date-times whose UTC instant leaves years 0000-9999: once stored, then refused by the answer's own schema.
        c("good filename, docUpdate in year 10000 UTC", "PATCH", `/v1/doc/${id}`, { filename: "renamed.md", docUpdate: "9999-12-31T23:59:59-00:01" }),
        c("good filename, docCreate in year -1 UTC", "PATCH", `/v1/doc/${id}`, { filename: "renamed.md", docCreate: "0000-01-01T00:00:00+01:00" }),
      ];
    }
    case "POST /v1/doc/init":
      return [
        c("unaccepted content type (415)", "POST", "/v1/doc/init", { corpusId: w.ids.corpus.keep, filename: "x.exe", contentType: "application/x-msdownload" }),
        c("docCreate in year -1 UTC", "POST", "/v1/doc/init", { corpusId: w.ids.corpus.keep, filename: "x.md", contentType: "text/markdown", docCreate: "0000-01-01T00:00:00+01:00" }),
        c("docUpdate in year 10000 UTC", "POST", "/v1/doc/init", { corpusId: w.ids.corpus.keep, filename: "x.md", contentType: "text/markdown", docUpdate: "9999-12-31T23:00:00-05:00" }),
        c("33 tags (400)", "POST", "/v1/doc/init", { corpusId: w.ids.corpus.keep, filename: "x.md", contentType: "text/markdown", tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }),
      ];
    case "POST /v1/auth/access-token":
      return [
        c("ttl past year 9999", "POST", "/v1/auth/access-token", { scope: ["corpus:read"], ttl: 300_000_000_000 }),
        c("ttl 10 (400)", "POST", "/v1/auth/access-token", { scope: ["corpus:read"], ttl: 10 }),
        c("empty scope (400)", "POST", "/v1/auth/access-token", { scope: [] }),
        c("unknown scope domain (400)", "POST", "/v1/auth/access-token", { scope: ["corpus:read", "nope:read"] }),
        { ...c("created with an access token (403)", "POST", "/v1/auth/access-token", { scope: ["corpus:read"] }), headers: { "content-type": "application/json", "x-access-token": w.widgetToken } },
      ];
    case "POST /v1/session/":
      return [c("one good corpus, one of the other organization", "POST", "/v1/session/", { corpusIds: [w.ids.corpus.keep, w.ids.corpus.other] })];
    case "GET /v1/post/q": {
      const s = w.ids.session.victim.ask!;
      return [
        c("agent of the other organization (404)", "GET", `/v1/post/q?sessionId=${s}&body=hello&agentId=${w.ids.agent.other}`),
        c("deleted agent (404)", "GET", `/v1/post/q?sessionId=${s}&body=hello&agentId=${w.ids.agent.deleted}`),
        c("deleted session", "GET", `/v1/post/q?sessionId=${w.ids.session.deleted}&body=hello`),
        // HEAD would run the GET handler and store both posts; the README says it is refused.
        c("HEAD", "HEAD", `/v1/post/q?sessionId=${s}&body=hello`),
      ];
    }
    case "GET /v1/webhook/widget/q": {
      const visitor = { "x-access-token": w.widgetToken };
      const s = w.ids.session.victim.widget!;
      return [{ ...c("HEAD", "HEAD", `/v1/webhook/widget/q?sessionId=${s}&body=hello`), headers: visitor }];
    }
    default:
      return [];
  }
}

const busy = (s: OrgStates) => JSON.stringify([s.a.documents, s.b.documents]).match(/"status":"(PROCESSING|PENDING)"/);

/** The state once no document is being ingested and two reads in a row agree. */
async function settled(w: World, db: Database, last: OrgStates): Promise<OrgStates> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const now = await orgStates(w, db);
    if (!busy(now) && Bun.deepEquals(now, last)) return now;
    last = now;
    await Bun.sleep(20);
  }
  throw new Error("refusal sweep: the organizations' state did not settle within 30 s");
}

const DOMAINS = ["config", "auth", "session", "doc", "corpus", "post", "usage", "agent", "chunk"];
const ACTIONS = ["create", "read", "update", "delete"];
/** The scope an operation needs where the spec or the method says it plainly (spec, Authentication rule 7). */
function neededScope(op: Op): string | undefined {
  const m = /^\/v1\/(session|doc|corpus|post|agent|chunk)\//.exec(op.path);
  if (!m || op.path.endsWith("/commit") || op.path.endsWith("/q") || (op.method === "POST" && op.path === "/v1/post/")) return undefined;
  const action = { POST: "create", PUT: "update", PATCH: "update", DELETE: "delete" }[op.method];
  return action && `${m[1]}:${action}`;
}

/** The operation's valid request made with an access token holding every scope but the one it needs: 403, nothing written. */
async function scopeCases(w: World, ops: Op[]): Promise<Refusal[]> {
  const out: Refusal[] = [];
  for (const op of ops) {
    const needed = neededScope(op);
    if (!needed) continue;
    const scope = DOMAINS.flatMap((d) => ACTIONS.map((a) => `${d}:${a}`)).filter((x) => x !== needed);
    const t = await w.a.api("POST", "/v1/auth/access-token", { scope });
    if (t.status !== 200) throw new Error(`refusal sweep: token without ${needed} → ${t.status}`);
    const base = generate(w, op, rng(7), 1).find((c) => c.base && !c.headers.accept)!;
    const { authorization: _, ...rest } = base.headers;
    out.push({ ...base, base: false, mustRefuse: true, label: `access token with every scope but ${needed}`, headers: { ...rest, "x-access-token": t.body.token } });
  }
  return out;
}

/** Every refused request for `op`, in a fixed order; the operation's own valid requests are left out. */
export function refusals(w: World, op: Op): Case[] {
  const gen = generate(w, op, rng(7), 100_000).filter((c) => !c.base);
  return [...specCases(w, op), ...probes(w, op), ...gen];
}

export async function sweep(w: World, ops: Op[], extra: Refusal[] = []): Promise<{ defects: Defect[]; perOp: Record<string, { refused: number; accepted: number }> }> {
  const db = openReadOnly(w);
  const defects: Defect[] = [];
  const perOp: Record<string, { refused: number; accepted: number }> = {};
  try {
    let before: OrgStates = await orgStates(w, db);
    const groups: [string, Refusal[]][] = ops.map((op) => [op.key, refusals(w, op)]);
    // Tokens minted before the baseline: minting one is a write of its own.
    const scoped = await scopeCases(w, ops);
    before = await orgStates(w, db);
    for (const c of [...scoped, ...extra]) {
      const g = groups.find(([k]) => k === c.op);
      // Scope refusals first, while the operation's victim still exists.
      if (g) g[1][scoped.includes(c) ? "unshift" : "push"](c);
      else groups.push([c.op, [c]]);
    }
    for (const [key, cases] of groups) {
      const n = (perOp[key] = { refused: 0, accepted: 0 });
      for (const c of cases) {
        const a = await send(w, c);
        if (a === "timeout") throw new Error(`no answer: ${c.op} — ${c.label}`);
        const after = await orgStates(w, db);
        // A 5xx is a refusal too: what it answered, it must not have written.
        if (a.status >= 400) {
          n.refused++;
          const expected = c.documented ? c.documented(structuredClone(before), a, after) : before;
          // A UTC midnight between the two reads moves every usage bucket: nothing to judge then.
          const dayTurned = (before.a.usage as { to?: string }).to !== (after.a.usage as { to?: string }).to;
          if (!dayTurned && !Bun.deepEquals(expected, after)) {
            const body = typeof c.body === "string" ? c.body.slice(0, 200) : c.body ? `<${c.body.length} bytes>` : "";
            defects.push({ request: `${c.op} — ${c.label}\n  ${c.method} ${c.url.slice(0, 200)} ${body}`, status: a.status, answer: a.text.slice(0, 300), changed: differences(expected, after) });
          }
          before = after;
        } else {
          n.accepted++;
          if (c.mustRefuse) defects.push({ request: `${c.op} — ${c.label}\n  ${c.method} ${c.url.slice(0, 200)}`, status: a.status, answer: a.text.slice(0, 300), changed: ["accepted, the spec refuses it"] });
          // An accepted commit or replace goes on in the background: the baseline is the state it ends in.
          before = await settled(w, db, after);
        }
      }
    }
  } finally {
    db.close();
  }
  return { defects, perOp };
}

export const report = (d: Defect[]) => d.map((x) => `${x.request}\n  → ${x.status} ${x.answer}\n  changed:\n    ${x.changed.join("\n    ")}`).join("\n\n");
