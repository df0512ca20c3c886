/**
 * Requests generated from one operation of the server's OpenAPI document: the valid one, then
 * mutations of each path parameter, query parameter and body field, of the body as a whole and
 * of the credential. Every random choice comes from the seeded generator, so a seed replays a run.
 */
import { anyValues, core, deepText, fits, nested, RAW_BOOLEANS, RAW_NUMBERS, RAW_STRINGS } from "./fuzz-values.ts";
import type { Kind, OpenApiOp, Schema, World } from "./fuzz-world.ts";

export interface Case {
  op: string;
  label: string;
  method: string;
  /** Path and query as sent, already encoded. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** A 400 must name this field. */
  field?: string;
  /** The server's own document refuses this input: a 2xx is a bug. */
  invalid?: boolean;
  /** The valid request: anything but 2xx is a bug (the fuzz would only reach refusals). */
  base?: boolean;
  /** Names another organization's or a deleted resource: anything but a refusal is a bug. */
  refuse?: boolean;
  expectStatus?: number;
}

export interface Op {
  key: string;
  method: string;
  path: string;
  spec: OpenApiOp;
  /** Widget paths take the access token, not the JWT. */
  widget?: boolean;
}

const KIND_OF: Record<string, Kind> = {
  corpusId: "corpus", corpusIds: "corpus", id: "doc", docId: "doc", documentId: "doc", chunkId: "chunk",
  sessionId: "session", postId: "post", agentId: "agent", token: "token",
};
/** Operations that write posts ask in a session of their own, so the kept session's posts stay as they were. */
const ASKS = /\/q$|^POST \/v1\/post\/$|^POST \/webhook\//;

/** Valid values the schema alone cannot tell (a content type that is accepted, a model that exists). */
const VALID: Record<string, (n: number) => unknown> = {
  // Zero-based page indices as a query parameter (preview), 1-based page numbers in a chunk body.
  pages: () => ["0", "1"],
  lang: () => "en",
  name: (n) => `fuzz ${n}`, filename: (n) => `fuzz-${n}.md`, contentType: () => "text/markdown",
  docCreate: () => "2024-01-02T03:04:05Z", docUpdate: () => "2024-01-02T03:04:05Z", scope: () => ["corpus:read"], ttl: () => 60,
  email: () => "a@example.com", temperature: () => 0.5, reset: () => ["description"], body: () => "When does the harbour open?",
  metadata: () => ({ fuzz: 1 }), chunk: () => ({}), tags: () => ["x"], userId: () => "user-1", issuer: () => "fuzz", description: () => "d",
  provider: () => "p", hash: () => "0".repeat(32), key: () => "k", value: () => "v", json: () => '{"k":"v"}', q: () => "fuzz*",
};
/** Optional fields left out of the valid request: their valid values depend on installed models. */
const LEAVE_OUT = new Set(["rerankModel", "baseModel", "createdAfter", "createdBefore"]);

function idFor(w: World, kind: Kind, opKey: string): string {
  const ids = w.ids[kind];
  if (opKey.includes("/webhook/") && ids.victim.widget) return ids.victim.widget;
  if (kind === "session" && ASKS.test(opKey)) return ids.victim.ask!;
  return ids.victim[opKey] ?? ids.keep;
}

/** Names must be unique across operations too (agent names conflict otherwise). */
let serial = 0;

export function generate(w: World, op: Op, rnd: () => number, cap: number): Case[] {
  const opKey = op.key;
  const huge = "h".repeat(100_000);
  // Bun answers a request line and headers over 16 KiB with an empty 431 before kbqa sees it
  // (README): parameters stay under that, to reach the server's own checks.
  const long = "l".repeat(12_000);
  const params = op.spec.parameters ?? [];
  const bodySchema = op.spec.requestBody?.content["application/json"]?.schema;
  const valid = (name: string, s: Schema | undefined): unknown => {
    const kind = KIND_OF[name];
    if (kind && s && core(s).type === "array") return [idFor(w, kind, opKey)];
    if (kind) return idFor(w, kind, opKey);
    const named = VALID[name]?.(++serial);
    if (named !== undefined && fits(named, s)) return named;
    if (name === "pages") return [1, 2];
    const c = core(s ?? {});
    if (c.enum) return c.enum[0];
    if ("const" in c) return c.const;
    if (c.type === "integer" || c.type === "number") return c.minimum ?? (c.exclusiveMinimum ?? 0) + 1;
    if (c.type === "boolean") return true;
    if (c.type === "array") return [valid("", c.items)];
    if (c.type === "object") return {};
    return "fuzz";
  };
  const pathVals: Record<string, string> = {};
  for (const p of params.filter((p) => p.in === "path")) pathVals[p.name] = String(valid(p.name, p.schema));
  // Half of the optional parameters, at random; the metadata filter's key and value go together.
  const chosen = new Set(params.filter((p) => p.in === "query" && (p.required || (!LEAVE_OUT.has(p.name) && rnd() < 0.5))).map((p) => p.name));
  if (chosen.has("key") !== chosen.has("value")) ["key", "value"].forEach((x) => chosen.add(x));
  const queryVals: [string, string][] = params
    .filter((p) => p.in === "query" && chosen.has(p.name))
    .map((p) => [p.name, encodeURIComponent(String(valid(p.name, p.schema)))]);
  const baseBody = (): Record<string, unknown> | undefined => {
    if (!bodySchema) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, s] of Object.entries((bodySchema.properties ?? {}) as Record<string, Schema>)) {
      if (bodySchema.required?.includes(k) || !LEAVE_OUT.has(k)) out[k] = valid(k, s);
    }
    return out;
  };
  const auth: Record<string, string> = op.widget ? { "x-access-token": w.widgetToken } : { authorization: `Bearer ${w.jwtA}` };
  const json = { "content-type": "application/json" };

  const make = (label: string, o: { path?: Record<string, string>; query?: [string, string][]; body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> } = {}): Case => {
    const pv = { ...pathVals, ...o.path };
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => pv[name]!);
    const query = o.query ?? queryVals;
    const url = path + (query.length ? "?" + query.map(([k, v]) => `${k}=${v}`).join("&") : "");
    const b = o.raw ?? (o.body !== undefined ? JSON.stringify(o.body) : bodySchema ? JSON.stringify(baseBody()) : undefined);
    const headers: Record<string, string> = { ...auth, ...(b !== undefined ? json : {}), ...o.headers };
    for (const h of Object.keys(headers)) if (headers[h] === "") delete headers[h];
    return { op: opKey, label, method: op.method, url, headers, body: b };
  };

  // `must` always runs (the valid request, each required field missing, no credential);
  // `cases` are sampled down to the cap.
  const cases: Case[] = [];
  const must: Case[] = [{ ...make("valid request"), base: true }];

  for (const p of params.filter((p) => p.in === "path")) {
    const kind = KIND_OF[p.name] ?? (p.name === "userId" ? "user" : undefined);
    const bad = (label: string, v: string, invalid = true) => cases.push({ ...make(`path ${p.name}: ${label}`, { path: { [p.name]: v } }), field: p.name, invalid: invalid && !fits(decodeURIComponentSafe(v), p.schema) });
    for (const [label, v] of RAW_STRINGS) if (v) bad(label, v);
    bad("not a uuid", "not-a-uuid");
    bad("uuid + suffix", uuid(rnd) + "x");
    bad("12k characters", long);
    if (kind) {
      const ids = w.ids[kind];
      bad("upper case", pathVals[p.name]!.toUpperCase(), false);
      bad("unknown id", uuid(rnd), false);
      const refused = (label: string, v: string) => cases.push({ ...make(`path ${p.name}: ${label}`, { path: { [p.name]: v } }), refuse: kind !== "user" });
      // A usage report of a deleted corpus is still billing history (a judgment call, not refused).
      if (op.path.startsWith("/v1/usage/")) bad("deleted", ids.deleted, false);
      else refused("deleted", ids.deleted);
      refused("other organization's", ids.other);
      for (const odd of ids.odd) bad("special id of the kind", odd, false);
      for (const other of Object.keys(w.ids) as Kind[]) if (other !== kind && other !== "user") bad(`a ${other} id`, w.ids[other].keep, false);
    }
  }

  for (const p of params.filter((p) => p.in === "query")) {
    const s = p.schema ?? {};
    const without = queryVals.filter(([k]) => k !== p.name);
    const q = (label: string, vals: string[], invalid?: boolean) =>
      cases.push({ ...make(`query ${p.name}: ${label}`, { query: [...without, ...vals.map((v) => [p.name, v] as [string, string])] }), field: p.name, invalid });
    if (p.required) must.push({ ...make(`query ${p.name}: missing`, { query: without }), field: p.name, invalid: true });
    else q("missing", []);
    const one = queryVals.find(([k]) => k === p.name)?.[1] ?? encodeURIComponent(String(valid(p.name, s)));
    q("repeated", [one, one]);
    q("12k characters", [long], queryRefuses(core(s), long));
    const kind = KIND_OF[p.name];
    if (kind) {
      q("not a uuid", ["not-a-uuid"], true);
      // A filter naming a deleted resource finds nothing (a judgment call); another organization's is refused.
      for (const [label, id] of [["unknown", uuid(rnd)], ["upper case", one.toUpperCase()], ["deleted", w.ids[kind].deleted]]) q(label!, [id!]);
      cases.push({ ...make(`query ${p.name}: other organization's`, { query: [...without, [p.name, w.ids[kind].other]] }), refuse: true });
    }
    const c = core(s);
    const list = c.type === "integer" || c.type === "number" ? RAW_NUMBERS : c.type === "boolean" ? RAW_BOOLEANS : RAW_STRINGS;
    for (const [label, v] of list) q(label, [v], v !== "" && queryRefuses(c, decodeURIComponentSafe(v)));
    if (c.type === "integer") {
      if (c.minimum !== undefined) q("below minimum", [String(c.minimum - 1)], true);
      if (c.maximum !== undefined) q("above maximum", [String(c.maximum + 1)], true);
    }
    if (c.type === "array") {
      q("comma-separated", [`${one},${one}`]);
      q("200 repeats", Array(200).fill(one));
    }
  }
  cases.push(make("unknown query parameter", { query: [...queryVals, ["zzz", "1"]] }));
  cases.push(make("odd query parameter names", { query: [...queryVals, ["__proto__", "1"], ["constructor[prototype][x]", "1"], ["pageSize[]", "1"], ["", "1"], ["%zz", "1"]] }));
  cases.push({ ...make("method the path does not serve"), method: "PROPFIND" });
  if (ASKS.test(opKey)) {
    // The answer streamed as server-sent events: refusals still come before the stream, as JSON.
    const stream = { accept: "text/event-stream" };
    must.push({ ...make("streamed answer", { headers: stream }), base: true });
    for (const p of params.filter((p) => p.in === "query" && p.required)) {
      cases.push({ ...make(`streamed, query ${p.name} missing`, { headers: stream, query: queryVals.filter(([k]) => k !== p.name) }), field: p.name, invalid: true });
    }
    cases.push({ ...make("streamed, unknown session", { headers: stream, query: queryVals.map(([k, v]) => [k, k === "sessionId" ? uuid(rnd) : v]) }) });
  }

  if (bodySchema) {
    const props = Object.entries((bodySchema.properties ?? {}) as Record<string, Schema>);
    for (const [k, s] of props) {
      const withField = (label: string, v: unknown, invalid = !fits(v, s)) => {
        const b = baseBody()!;
        b[k] = v;
        cases.push({ ...make(`body ${k}: ${label}`, { body: b }), field: k, invalid });
      };
      const b = baseBody()!;
      delete b[k];
      const missing = { ...make(`body ${k}: missing`, { body: b }), field: k, invalid: bodySchema.required?.includes(k) };
      (missing.invalid ? must : cases).push(missing);
      for (const [label, v] of anyValues(huge)) withField(label, v);
      const deepField = JSON.stringify({ ...baseBody(), [k]: "DEEP" }).replace('"DEEP"', deepText(10_000));
      cases.push({ ...make(`body ${k}: nested 10k levels`, { raw: deepField }), field: k, invalid: true });
      const c = core(s);
      if (c.maxLength !== undefined) withField("one past maxLength", "m".repeat(c.maxLength + 1));
      if (c.minimum !== undefined) withField("below minimum", c.minimum - 1);
      if (c.maximum !== undefined) withField("above maximum", c.maximum + 1);
      if (c.type === "array") {
        const item = valid(k, s);
        const one = Array.isArray(item) ? item[0] : item;
        withField("one past maxItems", Array((c.maxItems ?? 100) + 1).fill(one));
        withField("10k items", Array(10_000).fill(one));
        withField("item null", [one, null]);
        withField("item object", [one, { a: 1 }]);
        withField("item huge", [one, huge]);
        withField("item lone surrogate", [one, "x\udfff"]);
        withField("item of another type", [one, typeof one === "string" ? 1 : "one"]);
      }
      if (KIND_OF[k]) {
        const kind = KIND_OF[k]!;
        const wrap = (v: string) => (c.type === "array" ? [v] : v);
        withField("unknown id", wrap(uuid(rnd)));
        for (const [label, id] of [["deleted id", w.ids[kind].deleted], ["other organization's id", w.ids[kind].other]]) {
          const b = baseBody()!;
          b[k] = wrap(id!);
          // The first-generation widget reads corpusIds only to open a session, when no sessionId is sent.
          if (k === "corpusIds") delete b.sessionId;
          cases.push({ ...make(`body ${k}: ${label}`, { body: b }), refuse: true });
        }
      }
      if (c.type === "object") {
        withField("65 levels", nested(64));
        const deep = JSON.stringify({ ...baseBody(), [k]: "DEEP" }).replace('"DEEP"', `{"a":${deepText(50_000)}}`);
        cases.push({ ...make(`body ${k}: 50k levels`, { raw: deep }), field: k, invalid: true });
        withField("over 64k chars", { big: "b".repeat(70_000) });
        withField("unicode keys", { "\u202e": 1, "a\u0000b": 2, "😀": 3, "": 4, "a.b": 5, $where: 6 });
      }
    }
    cases.push({ ...make("extra field", { body: { ...baseBody(), zzzExtra: { deep: nested(10) } } }) });
    const whole = (label: string, raw: string | Uint8Array, headers: Record<string, string> = {}, invalid = true) =>
      cases.push({ ...make(`body: ${label}`, { raw, headers }), invalid });
    const good = JSON.stringify(baseBody());
    for (const [label, raw] of [
      ["truncated", good.slice(0, -1)], ["single quotes", good.replaceAll('"', "'")], ["trailing comma", good.slice(0, -1) + ",}"],
      ["two objects", good + good], ["trailing garbage", good + "x"], ["null", "null"], ["array", "[]"], ["number", "123"], ["string", '"s"'],
      ["NUL byte", "\u0000"], ["deep nesting (100k)", deepText(100_000)],
    ] as [string, string][]) whole(label, raw);
    whole("extra field nested 100k levels", good.replace(/^\{/, `{"zzz":${deepText(100_000)},`));
    whole("1e400 literal in an extra field", good.replace(/^\{/, '{"zzz":1e400,'), {}, false);
    whole("duplicate extra keys", good.replace(/^\{/, '{"zzz":1,"zzz":2,'), {}, false);
    whole("invalid UTF-8 in a key", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]));
    const text = props.find(([, s]) => core(s).type === "string" && core(s).format !== "uuid" && !core(s).enum)?.[0];
    if (text) {
      // "café" in Latin-1: a byte that is no UTF-8, inside a value the server stores.
      const [before, after] = JSON.stringify({ ...baseBody(), [text]: "caf\u0001" }).split("\\u0001");
      const enc = new TextEncoder();
      whole(`invalid UTF-8 in ${text}`, new Uint8Array([...enc.encode(before), 0xe9, ...enc.encode(after)]));
    }
    whole("UTF-8 BOM", "\ufeff" + good, {}, false);
    whole("empty", "", {}, !!bodySchema.required?.length);
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml", "application/json; charset=utf-16", "multipart/form-data; boundary=x"]) {
      whole(`as ${type}`, good, { "content-type": type }, false);
    }
    // A JWT seen for the first time is verified asynchronously, before the body is read.
    if (!op.widget) {
      for (const type of ["application/json", "text/plain"]) {
        must.push({ ...make(`as ${type}, with a JWT not seen before`, { raw: JSON.stringify(baseBody()), headers: { "content-type": type, authorization: `Bearer ${w.freshJwt()}` } }), base: true });
      }
    }
    whole("form fields as form type", "name=x&corpusId=y", { "content-type": "application/x-www-form-urlencoded" });
    whole("multipart body", '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--\r\n', { "content-type": "multipart/form-data; boundary=x" });
    whole("over the 16 MiB limit", new Uint8Array(16 * 1024 * 1024 + 10).fill(0x20));
  } else if (op.method !== "GET") {
    cases.push(make("unexpected JSON body", { raw: '{"a":1}' }), make("unexpected malformed body", { raw: "{" }));
  }

  if (!op.path.startsWith("/v1/") && !op.path.startsWith("/webhook/")) return [...must, ...pick(cases, cap - must.length, rnd)];
  must.push({ ...make("no credential", { headers: { authorization: "", "x-access-token": "" } }), expectStatus: 403 });
  cases.push({ ...make("garbage bearer", { headers: { authorization: "Bearer x.y.z", "x-access-token": "" } }), expectStatus: 403 });
  const narrow = op.path.startsWith("/v1/config/") ? w.narrowTokens.usage : w.narrowTokens.config;
  cases.push({ ...make("token without the scope", { headers: { authorization: "", "x-access-token": narrow } }), expectStatus: 403 });
  cases.push({ ...make("8k access token header", { headers: { "x-access-token": long.slice(0, 8000) } }) });
  cases.push({ ...make("request over Bun's 16 KiB header limit", { headers: { "x-fuzz": huge.slice(0, 17_000) } }), expectStatus: 431 });

  return [...must, ...pick(cases, cap - must.length, rnd)];
}

/** Whether the published schema of a query parameter refuses this (decoded) text. */
function queryRefuses(c: Schema, text: string): boolean {
  if (c.type === "boolean") return !["true", "false"].includes(text);
  if (c.type === "integer" || c.type === "number") return !fits(/^[+-]?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN, c);
  return !fits(text, c.type === "array" ? c.items : c);
}

/** `max` of the cases in a seeded order (Fisher–Yates). */
function pick<T>(all: T[], max: number, rnd: () => number): T[] {
  const a = [...all];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, Math.max(0, max));
}

function uuid(rnd: () => number): string {
  const h = Array.from({ length: 32 }, () => Math.floor(rnd() * 16).toString(16));
  h[12] = "4";
  h[16] = "89ab"[Math.floor(rnd() * 4)]!;
  const s = h.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

function decodeURIComponentSafe(v: string): string {
  try {
    return decodeURIComponent(v.replaceAll("+", " "));
  } catch {
    return v;
  }
}
