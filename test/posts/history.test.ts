import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest } from "./helpers.ts";
import { sql } from "./sql.ts";

// Two products with a warranty each. A follow-up that does not name the product depends on
// history: with it, retrieval also searches the previous question and finds the zorblax.
let k: Kbqa;
let org: Org;
let cid: string;
const docs: Record<string, string> = {};
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  cid = await corpus(org);
  docs.zorblax = await ingest(k, org, cid, "zorblax.md", "# Zorblax\n\nThe zorblax is a garden robot built in Leeds. The zorblax warranty lasts five years.\n");
  docs.quintor = await ingest(k, org, cid, "quintor.md",
    "# Quintor\n\nThe quintor is a kitchen scale. The quintor warranty lasts two years. How long the warranty lasts depends on the receipt. The warranty covers parts.\n");
});
afterAll(() => k?.stop());

const agent = async (name: string, useHistory: boolean, historySize?: number) => {
  const r = await org.api("POST", "/v1/agent/", { name, topK: 1, useHistory, ...(historySize === undefined ? {} : { historySize }) });
  expect(r.status).toBe(200);
  return r.body.id as string;
};
const citedDocs = (postId: string) =>
  sql<{ document_id: string }>(k, "SELECT document_id FROM post_citations WHERE post_id = ?", postId).map((r) => r.document_id);

async function followUp(agentId: string) {
  const s = await (async () => {
    const r = await org.api("POST", "/v1/session/", { corpusIds: [cid] });
    return r.body.id as string;
  })();
  const first = await ask(org, s, "What is the zorblax?", { agentId });
  expect(first.body.answer.body).toContain("garden robot");
  const second = await ask(org, s, "How long does the warranty last?", { agentId });
  expect(second.status).toBe(200);
  return second.body.answer;
}

describe("history", () => {
  test("without history the follow-up is answered alone", async () => {
    const answer = await followUp(await agent("No memory", false));
    expect(citedDocs(answer.id)).toEqual([docs.quintor!]);
    // Quoted from the quintor page, never the zorblax's answer.
    expect(answer.body).toContain("warranty");
    expect(answer.body).not.toContain("five years");
  });

  test("with history the previous question steers the follow-up", async () => {
    const answer = await followUp(await agent("Memory", true, 2));
    expect(citedDocs(answer.id)).toEqual([docs.zorblax!]);
    expect(answer.body).toContain("five years");
  });

  test("historySize 0 replays nothing", async () => {
    const answer = await followUp(await agent("Zero memory", true, 0));
    expect(citedDocs(answer.id)).toEqual([docs.quintor!]);
  });
});
