// `lang` drives the language of the summary (spec, Document). When the client gives none it is
// detected from the content at ingestion. New content (`PUT /v1/doc/{id}/init`) is detected
// again: the language detected from the previous content stayed on the document, so a French
// replacement of an English text kept `lang: "en"` and got an English summary. A language the
// client gave at init is the client's and is kept.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, put, upload } from "./helpers.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
});
afterAll(() => k?.stop());

const EN = "The employees of the company get paid leave every year and they are happy with the policy that the board has approved for the whole staff.";
const FR = "Les employés de la société ont des congés payés chaque année et ils sont contents de la politique que le conseil a approuvée pour tout le personnel.";

const ready = (id: string) =>
  waitFor(async () => {
    const d = (await a.api("GET", `/v1/doc/${id}`)).body;
    if (d.status === "FAILED") throw new Error(`ingestion failed: ${d.statusMsg}`);
    return d.status === "READY" ? d : null;
  }, "ingestion to finish", 60_000);

/** Replaces the content of a READY document with `text` and waits for it to be READY again. */
async function replaceWith(id: string, text: string) {
  const r = await a.api("PUT", `/v1/doc/${id}/init`);
  expect(r.status).toBe(200);
  expect((await put(r.body.uploadUrl, `${text} ${crypto.randomUUID()}`)).status).toBe(200);
  expect((await a.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
  return { replaced: r.body.document, after: await ready(id) };
}

test("a detected language is detected again for new content: no stale lang, summary in the new language", async () => {
  const { init } = await upload(a, corpusId, `${EN} ${crypto.randomUUID()}`);
  const id = init.document.id;
  expect((await ready(id)).lang).toBe("en");

  const { replaced, after } = await replaceWith(id, FR);
  expect(replaced.lang).toBeUndefined(); // the new content's language is not known yet
  expect(after.lang).toBe("fr");
  const summary = await a.api("GET", `/v1/doc/${id}/summary`);
  expect(summary.status).toBe(200);
  expect(summary.body).toStartWith("## Résumé");
  expect((await a.api("GET", `/v1/doc/q?corpusId=${corpusId}&lang=en`)).body.items.map((d: { id: string }) => d.id)).not.toContain(id);
});

test("a language the client gave at init is kept through a replacement", async () => {
  const { init } = await upload(a, corpusId, `${EN} ${crypto.randomUUID()}`, { lang: "de" });
  const id = init.document.id;
  expect((await ready(id)).lang).toBe("de");

  const { replaced, after } = await replaceWith(id, FR);
  expect(replaced.lang).toBe("de");
  expect(after.lang).toBe("de");
  expect((await a.api("GET", `/v1/doc/${id}/summary`)).body).toStartWith("## Zusammenfassung");
});

test("committing a replacement without a new upload detects the same language again", async () => {
  const { init } = await upload(a, corpusId, `${FR} ${crypto.randomUUID()}`);
  const id = init.document.id;
  expect((await ready(id)).lang).toBe("fr");
  const r = await a.api("PUT", `/v1/doc/${id}/init`);
  expect(r.body.document.lang).toBeUndefined();
  expect((await a.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
  expect((await ready(id)).lang).toBe("fr");
});
