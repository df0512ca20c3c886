// Adversarial session searches over HTTP, compared with the previous statements
// (scripts/lib/sessions-search-previous.ts): odd keys, number spellings sent raw (1.0, -0,
// 2^53+1, 1e21), look-alike strings, arrays with duplicates, nesting, patches, deletions, a
// visitor's token, paging edges, and a second organization with the same metadata.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { mulberry32 } from "../helpers/seeded.ts";
import { previousSearch, type PreviousFilter } from "../../scripts/lib/sessions-search-previous.ts";

/** True when the fragment's text holds a number JSON.parse reads as ±Infinity. */
const beyondRange = (json?: string): boolean => {
  const walk = (v: unknown): boolean => (typeof v === "number" ? !Number.isFinite(v) : v !== null && typeof v === "object" && Object.values(v).some(walk));
  return json !== undefined && walk(JSON.parse(json));
};

const SEED = Number(process.env.SEED ?? 4242);
console.log(`search-adversarial seed ${SEED}`);
const random = mulberry32(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const KEYS = ["", "a.b", "[0]", 'x"y', "%", "_", "*", "\\", "\t", "é", "e\u0301", "😀", "k".repeat(200), "__proto__", "1", "n", "t", "o"];
const NUMS = ["1", "1.0", "1e0", "-0", "0", "9007199254740993", "12345678901234567890", "0.30000000000000004", "1e21", "1E-7", "3"];
const STRS = ["", "1", "01", " 1", "1e3", "true", "null", "3", "-0", '"', "\\", "%", "\u0001", "é", "e\u0301", "😀", "\u2028", "[]", "{}"];
const raw = (d: number): string => {
  const r = random();
  if (r < 0.25) return pick(NUMS);
  if (r < 0.35) return pick(["true", "false", "null"]);
  if (d > 2 || r < 0.65) return JSON.stringify(pick(STRS));
  if (r < 0.85) return `[${Array.from({ length: Math.floor(random() * 4) }, () => raw(d + 1)).join(",")}${random() < 0.3 ? ",1,1" : ""}]`.replace("[,", "[");
  return obj(d + 1);
};
const obj = (d = 0): string => `{${KEYS.filter(() => random() < 0.15).map((k) => `${JSON.stringify(k)}:${raw(d)}`).join(",")}}`;

let k: Kbqa;
let a: Org;
let b: Org;
const corpora: string[] = [];
const stored: unknown[] = [];
const USERS = ["u1", "u2", "visitor"];
const tokens = new Map<string, string>();
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
  for (const o of [a, a, b]) corpora.push((await o.api("POST", "/v1/corpus/", { name: "c" })).body.id);
  for (const u of USERS) tokens.set(u, (await a.api("POST", "/v1/auth/access-token", { scope: ["session:read", "session:create"], userId: u })).body.token);
  const ids: string[] = [];
  for (let i = 0; i < 70; i++) {
    const m = obj();
    const c = pick([[corpora[0]], [corpora[1]], [corpora[1], corpora[0]]]);
    const r = await k.request("POST", "/v1/session/", `{"corpusIds":${JSON.stringify(c)},"metadata":${m}}`, { "x-access-token": tokens.get(pick(USERS))! });
    expect(r.status, m).toBe(200);
    stored.push(r.body.metadata);
    ids.push(r.body.id);
    expect((await b.api("POST", "/v1/session/", `{"corpusIds":["${corpora[2]}"],"metadata":${m}}`)).status).toBe(200);
  }
  for (const id of ids) {
    const r = random();
    if (r < 0.15) for (const m of [obj(), "{}", obj()]) expect((await a.api("PATCH", `/v1/session/${id}`, `{"metadata":${m}}`)).status).toBe(200);
    else if (r < 0.25) expect((await a.api("DELETE", `/v1/session/${id}`)).status).toBe(200);
  }
});
afterAll(() => k?.stop());

function fragment(): string {
  if (random() < 0.3) return pick(["{}", '{"o":{}}', '{"t":[]}', '{"n":null}', '{"t":[[]]}', '{"t":[{}]}', '{"n":-0}', '{"n":1.0}', '{"n":1e400}', '{"t":[1,1]}', '{"\\ud800":1}', obj()]);
  const part = (v: unknown): unknown =>
    Array.isArray(v) ? v.filter(() => random() < 0.5).map(part)
    : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(() => random() < 0.6).map(([c, cv]) => [c, part(cv)]))
    : v;
  return JSON.stringify(part(pick(stored)));
}

test(`adversarial filters answer as the previous statements did (seed ${SEED})`, async () => {
  const jwt = { authorization: `Bearer ${await a.jwt()}` };
  const db = new Database(join(k.dataDir, "kbqa.sqlite"), { readonly: true });
  let hits = 0;
  try {
    for (let i = 0; i < 400; i++) {
      const f: PreviousFilter = {};
      if (random() < 0.5) f.json = fragment();
      else {
        const m = pick(stored) as Record<string, unknown>;
        f.key = random() < 0.8 && Object.keys(m).length ? pick(Object.keys(m)) : pick(KEYS);
        const v = m[f.key];
        f.value = random() < 0.5 && v !== undefined ? (typeof v === "string" ? v : JSON.stringify(v)) : pick([...NUMS, ...STRS, '"3"']);
      }
      if (random() < 0.2) f.userId = pick([...USERS, "nobody"]);
      if (random() < 0.2) f.corpusId = pick(corpora.slice(0, 2));
      const owner = random() < 0.2 ? pick(USERS) : undefined;
      const full = previousSearch(db, a.orgId, f, { pageIndex: 0, pageSize: 100 }, owner);
      const pageSize = pick([1, 2, 7, 100]);
      const last = Math.max(0, Math.ceil(full.total / pageSize) - 1);
      const p = { pageIndex: pick([0, last, last + 1, 1000]), pageSize };
      const path = `/v1/session/q?${new URLSearchParams({ ...(f as Record<string, string>), pageIndex: String(p.pageIndex), pageSize: String(pageSize) })}`;
      const r = await k.request("GET", path, undefined, owner ? { "x-access-token": tokens.get(owner)! } : jwt);
      // A number beyond JSON's range (1e400) matched nothing and was echoed as null; it is refused now.
      if (beyondRange(f.json)) {
        expect([r.status, r.body.message], path).toEqual([400, expect.stringContaining("is beyond ±1.8e308")]);
        continue;
      }
      expect(r.status, path).toBe(200);
      const want = previousSearch(db, a.orgId, f, p, owner);
      expect({ path, total: r.body.total, ids: r.body.items.map((s: { id: string }) => s.id) }).toEqual({ path, ...want });
      if (want.total) hits++;
    }
  } finally {
    db.close();
  }
  expect(hits).toBeGreaterThan(100);
});
