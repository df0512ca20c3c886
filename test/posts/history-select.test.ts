import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { postService } from "../../src/posts/service.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-history-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = openDb(dir);
let now = 1_000;
const clock = { now: () => now };
const sessions = { get: (_o: string, id: string) => ({ id, corpusIds: ["c"] }) };
const posts = postService(db, clock, sessions);
const ORG = "org-1";

function exchange(session: string, q: string, a: string, sameMs = true) {
  const base = { sessionId: session, userId: "u", lang: "en", agentId: "a", usageCorpusId: "c" };
  const query = posts.insert(ORG, { ...base, owner: "USER", body: q }, now);
  if (!sameMs) now++;
  const answer = posts.insert(ORG, { ...base, owner: "SYSTEM", body: a }, now);
  now++;
  return [query.id, answer.id];
}

describe("history selection from stored posts", () => {
  const ids = [...exchange("s1", "q1", "a1"), ...exchange("s1", "q2", "a2"), ...exchange("s1", "q3", "a3", false)];
  exchange("s2", "other session", "other answer");

  test("the last N posts of the session, oldest first; a question and its answer sharing a millisecond stay in order", () => {
    expect(posts.history(ORG, "s1", 4)).toEqual([
      { role: "user", content: "q2" },
      { role: "assistant", content: "a2" },
      { role: "user", content: "q3" },
      { role: "assistant", content: "a3" },
    ]);
    expect(posts.history(ORG, "s1", 0)).toEqual([]);
    expect(posts.history(ORG, "s1", 100)).toHaveLength(6);
  });

  test("deleted posts are skipped, other organizations and sessions never read", () => {
    posts.remove(ORG, "u", ids[3]!);
    expect(posts.history(ORG, "s1", 2)).toEqual([
      { role: "user", content: "q3" },
      { role: "assistant", content: "a3" },
    ]);
    expect(posts.history(ORG, "s1", 3).map((m) => m.content)).toEqual(["q2", "q3", "a3"]);
    expect(posts.history("org-2", "s1", 10)).toEqual([]);
  });
});
