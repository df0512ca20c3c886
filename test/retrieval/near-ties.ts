import { expect } from "bun:test";
import type { Kbqa, Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "../posts/helpers.ts";
import { sql } from "../posts/sql.ts";

/**
 * Plants in `org` three one-chunk documents of the same length that differ in one word: "zebra"
 * in one, "quokka" in two. BM25 ranks the zebra chunk first, as the rarer word, so its top
 * citation moves exactly when the word counts it ranks on change. Returns the function that asks
 * twice ("zebra quokka", "quokka zebra") with a top-K of 1 and names the cited chunks.
 */
export async function plantNearTies(k: Kbqa, org: Org): Promise<() => Promise<string[]>> {
  const names: Record<string, string> = {};
  const own = await corpus(org, "near ties");
  names[await ingest(k, org, own, "one.md", "# Notes one\n\nThe committee reviewed the figures zebra.\n")] = "zebra";
  names[await ingest(k, org, own, "two.md", "# Notes two\n\nThe committee reviewed the figures quokka.\n")] = "quokka";
  names[await ingest(k, org, own, "six.md", "# Notes six\n\nThe committee reviewed the numbers quokka.\n")] = "quokka";
  const agent = await org.api("POST", "/v1/agent/", { name: "top one", topK: 1, rerank: false, useHistory: false });
  expect(agent.status).toBe(200);
  const sessionId = await session(org, [own]);
  return async () => {
    const out: string[] = [];
    for (const body of ["zebra quokka", "quokka zebra"]) {
      const r = await ask(org, sessionId, body, { agentId: agent.body.id });
      expect(r.status).toBe(200);
      const cited = sql<{ document_id: string }>(k, "SELECT document_id FROM post_citations WHERE post_id = ?", r.body.answer.id);
      out.push(...cited.map((c) => names[c.document_id] ?? "other"));
    }
    return out;
  };
}
