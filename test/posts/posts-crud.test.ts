import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, session } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let sid: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  sid = await session(org, [await corpus(org)]);
});
afterAll(() => k?.stop());

describe("posts", () => {
  test("a query over an empty corpus stores both posts and says the documents do not answer", async () => {
    const r = await ask(org, sid, "What is the capital of Zorbania?", { lang: "en" });
    expect(r.status).toBe(200);
    const { query, answer } = r.body;
    expect(Object.keys(query).sort()).toEqual(["agentId", "attachment", "body", "createdAt", "id", "lang", "owner", "sessionId"]);
    expect(query).toMatchObject({ sessionId: sid, owner: "USER", body: "What is the capital of Zorbania?", lang: "en", attachment: 0 });
    expect(answer).toMatchObject({ sessionId: sid, owner: "SYSTEM", lang: "en", attachment: 0, agentId: query.agentId });
    expect(answer.body).toBe("The documents do not contain the answer to this question.");
    expect((await org.api("GET", `/v1/post/${answer.id}`)).body).toEqual(answer);
    expect((await org.api("GET", `/v1/post/${query.id}`)).body).toEqual(query);
    expect((await org.api("GET", `/v1/post/attachment/${answer.id}`)).body).toEqual([]);
  });

  test("lang is detected from the question when absent", async () => {
    const r = await ask(org, sid, "Quelle est la capitale de la Zorbanie et pourquoi est-elle connue ?");
    expect(r.status).toBe(200);
    expect(r.body.query.lang).toBe("fr");
    expect(r.body.answer.lang).toBe("fr");
    expect(r.body.answer.body).toBe("Les documents ne contiennent pas la réponse à cette question.");
  });

  test("listing: DESC by default, ASC on request, total, paging, deleted posts excluded", async () => {
    const s2 = await session(org, [await corpus(org, "list")]);
    const ids: string[] = [];
    for (const q of ["first question here", "second question here"]) {
      const r = await ask(org, s2, q);
      ids.push(r.body.query.id, r.body.answer.id);
    }
    const desc = await org.api("GET", `/v1/post/?sessionId=${s2}`);
    expect(desc.status).toBe(200);
    expect(desc.body).toMatchObject({ sessionId: s2, order: "DESC", pageIndex: 0, pageSize: 25, total: 4 });
    expect(desc.body.items.map((p: any) => p.id)).toEqual([...ids].reverse());
    const asc = await org.api("GET", `/v1/post/?sessionId=${s2}&order=ASC&pageSize=3`);
    expect(asc.body.items.map((p: any) => p.id)).toEqual(ids.slice(0, 3));
    const page1 = await org.api("GET", `/v1/post/?sessionId=${s2}&order=ASC&pageSize=3&pageIndex=1`);
    expect(page1.body.items.map((p: any) => p.id)).toEqual(ids.slice(3));

    const del = await org.api("DELETE", `/v1/post/${ids[1]}`);
    expect(del.status).toBe(200);
    expect(Object.keys(del.body).sort()).toEqual(["message", "timestamp"]);
    expect((await org.api("GET", `/v1/post/${ids[1]}`)).status).toBe(404);
    expect((await org.api("DELETE", `/v1/post/${ids[1]}`)).status).toBe(404);
    const after = await org.api("GET", `/v1/post/?sessionId=${s2}&order=ASC`);
    expect(after.body.total).toBe(3);
    expect(after.body.items.map((p: any) => p.id)).toEqual([ids[0], ids[2], ids[3]]);
  });

  test("listing validation: sessionId required, paging and order checked, naming the parameter", async () => {
    expect((await org.api("GET", "/v1/post/")).status).toBe(400);
    for (const [q, name] of [["pageSize=0", "pageSize"], ["pageSize=101", "pageSize"], ["pageIndex=-1", "pageIndex"], ["order=SIDEWAYS", "order"]]) {
      const r = await org.api("GET", `/v1/post/?sessionId=${sid}&${q}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(name);
    }
    expect((await org.api("GET", `/v1/post/?sessionId=${crypto.randomUUID()}`)).status).toBe(404);
  });

  test("another organization sees none of it", async () => {
    const other = await k.org();
    const mine = (await org.api("GET", `/v1/post/?sessionId=${sid}`)).body.items[0].id;
    expect((await other.api("GET", `/v1/post/${mine}`)).status).toBe(404);
    expect((await other.api("GET", `/v1/post/attachment/${mine}`)).status).toBe(404);
    expect((await other.api("DELETE", `/v1/post/${mine}`)).status).toBe(404);
    expect((await other.api("GET", `/v1/post/?sessionId=${sid}`)).status).toBe(404);
    expect((await ask(other, sid, "anything at all")).status).toBe(404);
  });

  test("query validation: missing body or session → 400, unknown session → 404", async () => {
    expect((await org.api("GET", `/v1/post/q?sessionId=${sid}`)).status).toBe(400);
    expect((await org.api("GET", `/v1/post/q?body=hello`)).status).toBe(400);
    expect((await ask(org, crypto.randomUUID(), "hello there")).status).toBe(404);
  });

  test("posts of a deleted session disappear", async () => {
    const s3 = await session(org, [await corpus(org, "gone")]);
    const r = await ask(org, s3, "a question before deletion");
    expect((await org.api("DELETE", `/v1/session/${s3}`)).status).toBe(200);
    expect((await org.api("GET", `/v1/post/${r.body.answer.id}`)).status).toBe(404);
    expect((await org.api("GET", `/v1/post/?sessionId=${s3}`)).status).toBe(404);
  });
});
