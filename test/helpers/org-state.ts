/**
 * Everything an organization can observe of its own data, read in one go: every listing the API
 * serves (corpora, each corpus's documents with all their fields, chunks with their text,
 * sessions, each session's posts, agents, the usage report) and, since no endpoint lists access
 * tokens, each known token's answer plus the organization's token rows in SQLite. Two states
 * compared with toEqual tell whether a request changed anything.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { World } from "./fuzz-world.ts";
import type { Org } from "./server.ts";

/** Every item of a paginated listing (pageSize 25: the chunk listing's limit with bodies). */
async function all(org: Org, path: string): Promise<unknown> {
  const items: unknown[] = [];
  for (let page = 0; page < 40; page++) {
    const r = await org.api("GET", `${path}${path.includes("?") ? "&" : "?"}pageSize=25&pageIndex=${page}`);
    if (r.status !== 200) return { status: r.status, error: r.body?.message };
    items.push(...r.body.items);
    if (r.body.items.length < 25) return items;
  }
  throw new Error(`org state: ${path} has more than 1000 items`);
}

async function state(w: World, org: Org, tokens: Record<string, [string, string]>) {
  const corpora = (await all(org, "/v1/corpus/")) as { id: string }[];
  const sessions = (await all(org, "/v1/session/")) as { id: string }[];
  const [documents, posts, chunks, agents, usage, tokenAnswers] = await Promise.all([
    Promise.all(corpora.map(async (c) => [c.id, await all(org, `/v1/doc/?corpusId=${c.id}`)] as const)),
    Promise.all(sessions.map(async (s) => [s.id, await all(org, `/v1/post/?sessionId=${s.id}`)] as const)),
    all(org, "/v1/chunk/?body=true"),
    org.api("GET", "/v1/agent/").then((r) => r.body),
    // The report's `timestamp` is the time of the read (spec: server time of computation).
    org.api("GET", "/v1/usage/all?timeframe=Day").then(({ body: { timestamp: _, ...rest } }) => rest),
    Promise.all(Object.entries(tokens).map(async ([name, [token, path]]) => [name, (await w.k.request("GET", path, undefined, { "x-access-token": token })).status] as const)),
  ]);
  return { corpora, documents: Object.fromEntries(documents), chunks, sessions, posts: Object.fromEntries(posts), agents, usage, tokens: Object.fromEntries(tokenAnswers) };
}

export type OrgStates = Awaited<ReturnType<typeof orgStates>>;

/** Organization A's state (the one the sweep sends as) and B's (whose ids it names). */
export async function orgStates(w: World, db: Database) {
  const t = w.ids.token;
  const [a, b] = await Promise.all([
    state(w, w.a, {
      widget: [w.widgetToken, "/v1/corpus/"], config: [w.narrowTokens.config, "/v1/config/model"], usage: [w.narrowTokens.usage, "/v1/usage/all?timeframe=Day"],
      victim: [t.victim["DELETE /v1/auth/access-token/{token}"]!, "/v1/corpus/"], deleted: [t.deleted, "/v1/corpus/"],
    }),
    state(w, w.b, { other: [t.other, "/v1/corpus/"] }),
  ]);
  const rows = (org: string) => db.query("SELECT * FROM access_tokens WHERE org_id = ? ORDER BY token_hash").all(org);
  // Grants are not listed, but a refused init or replace that issued one wrote something.
  const grants = (org: string) => db.query("SELECT nonce, document_id, generation, claimed_at, completed_at FROM upload_grants WHERE org_id = ? ORDER BY nonce").all(org);
  return { a: { ...a, accessTokenRows: rows(w.a.orgId), uploadGrants: grants(w.a.orgId) }, b: { ...b, accessTokenRows: rows(w.b.orgId), uploadGrants: grants(w.b.orgId) } };
}

/** A read-only handle on the server's SQLite file (WAL: reads beside the running server). */
export const openReadOnly = (w: World) => new Database(join(w.k.dataDir, "kbqa.sqlite"), { readonly: true });
