// Detected languages end to end: a short English question is answered in English, a small
// English CSV is an English document with an English summary heading. The question was taken
// for Portuguese ("Os documentos não contêm a resposta a esta pergunta.") and the CSV, whose
// names hold "da", "do" and "a", got "## Resumo".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "./helpers.ts";

const STAFF_CSV = "name,role\nAna da Silva,a manager\nJoao do Carmo,a driver\nRita da Costa,a cook\n";

let k: Kbqa;
let org: Org;
let cid: string;
let sid: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  cid = await corpus(org);
  sid = await session(org, [cid]);
}, 120_000);
afterAll(() => k?.stop());

describe("detected languages", () => {
  test("a short English question: both posts en, the refusal in English", async () => {
    const r = await ask(org, sid, "Do I need a receipt?");
    expect(r.status).toBe(200);
    expect([r.body.query.lang, r.body.answer.lang]).toEqual(["en", "en"]);
    expect(r.body.answer.body).toEqual("The documents do not contain the answer to this question.");
  });

  test("a French question is still French", async () => {
    const r = await ask(org, sid, "Faut-il garder le reçu de la course ?");
    expect([r.body.query.lang, r.body.answer.lang]).toEqual(["fr", "fr"]);
  });

  test("a small English CSV with Portuguese names: lang en, summary under '## Summary'", async () => {
    const id = await ingest(k, org, cid, "staff.csv", STAFF_CSV, "text/csv");
    const doc = await org.api("GET", `/v1/doc/${id}`);
    expect(doc.body.lang).toEqual("en");
    const summary = await org.api("GET", `/v1/doc/${id}/summary`);
    expect(summary.status).toBe(200);
    expect(String(summary.body).split("\n")[0]).toEqual("## Summary");
  });
});
