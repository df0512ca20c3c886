/**
 * Sends fuzz cases (fuzz-cases.ts) and judges each answer by the product rule: no 5xx, an answer
 * within the deadline, the spec's error object on every refusal, the field at fault named in a
 * 400 caused by a field, and nothing refused that the document calls valid or accepted that it
 * calls invalid. A refused write must leave its resource as it was.
 */
import { generate, type Case, type Op } from "./fuzz-cases.ts";
import { rng } from "./seeded.ts";
import type { World } from "./fuzz-world.ts";

export const DEADLINE_MS = 10_000;
/** Answers slower than this are listed (not failed): where the run's time goes. */
const SLOW_MS = 1_000;
/** FUZZ_SEED replays a run; FUZZ_CAP raises the number of cases per operation (all of them: 100000). */
export const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
export const CAP = Number(process.env.FUZZ_CAP ?? 60);

export interface Answer {
  status: number;
  text: string;
  json?: any;
  ms: number;
}

export async function send(w: World, c: Case): Promise<Answer | "timeout"> {
  const t0 = performance.now();
  try {
    const r = await fetch(w.k.url + c.url, { method: c.method, headers: c.headers, body: c.body as BodyInit, signal: AbortSignal.timeout(DEADLINE_MS) });
    const text = await r.text();
    let json: unknown;
    if ((r.headers.get("content-type") ?? "").includes("json")) {
      try {
        json = JSON.parse(text);
      } catch {}
    }
    return { status: r.status, text, json, ms: performance.now() - t0 };
  } catch (e) {
    if ((e as Error).name === "TimeoutError") return "timeout";
    throw e;
  }
}

const pathOf = (url: string) => url.split("?")[0]!;

/** What is wrong with this answer to this case, or null. */
export function judge(c: Case, a: Answer | "timeout"): string | null {
  if (a === "timeout") return `no answer within ${DEADLINE_MS} ms`;
  if (a.status >= 500) return `status ${a.status}`;
  if (c.expectStatus !== undefined && a.status !== c.expectStatus) return `status ${a.status}, expected ${c.expectStatus}`;
  if (c.base && a.status >= 300) return `the valid request was refused (${a.status})`;
  if (c.invalid && a.status < 300) return `accepted (${a.status}) input that the OpenAPI document refuses`;
  if (c.refuse && a.status < 400) return `answered ${a.status} for another organization's or a deleted resource`;
  if (a.status < 400 || c.url.startsWith("/storage/")) return null;
  // Bun's own refusal, before kbqa sees the request (README): the one answer without the error object.
  if (a.status === 431) return c.expectStatus === 431 || c.url.length + JSON.stringify(c.headers).length > 16_000 ? null : "431 for a request under 16 KiB";
  const e = a.json;
  if (!e || typeof e !== "object") return `refusal ${a.status} without a JSON error object`;
  const problems: string[] = [];
  if (typeof e.timestamp !== "string" || Number.isNaN(Date.parse(e.timestamp))) problems.push("timestamp");
  if (e.status !== a.status) problems.push(`status ${e.status}`);
  if (typeof e.error !== "string" || !e.error) problems.push("error");
  if (typeof e.message !== "string" || e.message.trim().length < 10) problems.push("message");
  if (e.path !== pathOf(c.url) && e.path !== safeDecode(pathOf(c.url))) problems.push(`path ${JSON.stringify(e.path)}`);
  if (problems.length) return `error object wrong in ${problems.join(", ")}`;
  // A refusal quotes what was sent in part (40 or 64 characters), never a whole huge value.
  if (e.message.length > 1000) return `message of ${e.message.length} characters`;
  if (a.status === 400 && c.field && c.invalid && !names(e.message, c.field)) return `400 does not name the field '${c.field}'`;
  return null;
}

// Escaped: an item's path (`tags[1]`) is no character class.
const names = (message: string, field: string) => new RegExp(`(^|[^A-Za-z])${field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^A-Za-z]|$)`).test(message);

function safeDecode(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/** Where a refused write must have changed nothing: the resource the operation's victim id names. */
function readBackPath(c: Case): string | null {
  if (!["PATCH", "PUT", "DELETE"].includes(c.method) || !c.url.startsWith("/v1/") || c.url.startsWith("/v1/auth/")) return null;
  return pathOf(c.url).replace(/\/init$/, "");
}

export interface Failure {
  case: string;
  problem: string;
  answer: string;
}

/** Sends prepared cases in turn (no read-back) and returns what went wrong. */
export async function fuzzCases(w: World, cases: Case[], seed = SEED): Promise<Failure[]> {
  const failures: Failure[] = [];
  for (const c of cases) {
    const a = await send(w, c);
    const problem = judge(c, a);
    if (problem) failures.push({ case: describe(c, seed), problem, answer: a === "timeout" ? "(none)" : `${a.status} ${a.text.slice(0, 400)}` });
  }
  return failures;
}

/**
 * Runs every case of the operations in turn and returns what went wrong (empty when nothing).
 * Operations that end their victim (delete, replace, commit) run the valid request last.
 */
export async function fuzzOps(w: World, ops: Op[], seed = SEED, cap = CAP): Promise<{ failures: Failure[]; sent: number }> {
  const failures: Failure[] = [];
  let sent = 0;
  const rnd = rng(seed);
  for (const op of ops) {
    const all = generate(w, op, rnd, cap);
    const ends = op.method === "DELETE" || (op.method === "PUT" && op.path.endsWith("/init")) || op.path.endsWith("/commit");
    const ordered = ends ? [...all.filter((c) => !c.base), ...all.filter((c) => c.base)] : all;
    const victimPath = readBackPath(all[0]!);
    let before = victimPath ? await readBack(w, victimPath) : null;
    let ended = false;
    for (const c of ordered) {
      const a = await send(w, c);
      sent++;
      if (a !== "timeout" && a.ms > SLOW_MS) console.log(`slow: ${Math.round(a.ms)} ms for ${c.op} — ${c.label} (${a.status})`);
      let problem = judge(c, a);
      if (problem && c.base && ended) problem = null; // a mutation (upper-case id) already did it
      if (a !== "timeout" && a.status < 300 && ends) ended = true;
      if (victimPath && a !== "timeout") {
        const now = await readBack(w, victimPath);
        if (!problem && a.status >= 400 && now !== before) problem = `refused (${a.status}) but ${victimPath} changed:\n  before ${before}\n  after  ${now}`;
        before = now;
      }
      if (problem) failures.push({ case: describe(c, seed), problem, answer: a === "timeout" ? "(none)" : `${a.status} ${a.text.slice(0, 400)}` });
    }
  }
  return { failures, sent };
}

async function readBack(w: World, path: string): Promise<string> {
  const r = await w.a.api("GET", path);
  // A refusal's timestamp is the time of the read, not state.
  const { timestamp: _, ...rest } = r.status >= 400 && r.body && typeof r.body === "object" ? r.body : { timestamp: 0, body: r.body };
  return `${r.status} ${JSON.stringify(rest)}`;
}

function describe(c: Case, seed: number): string {
  const body = c.body === undefined ? "" : typeof c.body === "string" ? c.body : `<${c.body.length} bytes>`;
  const shown = body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body;
  const url = c.url.length > 300 ? `${c.url.slice(0, 300)}… (${c.url.length} chars)` : c.url;
  return `[seed ${seed}] ${c.op} — ${c.label}\n  ${c.method} ${url}\n  headers ${JSON.stringify(Object.keys(c.headers))}${shown ? `\n  body ${shown}` : ""}`;
}

export const report = (f: Failure[]) => f.map((x) => `${x.case}\n  → ${x.problem}\n  answer ${x.answer}`).join("\n\n");
