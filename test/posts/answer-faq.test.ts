// End to end on the built-in tier: an FAQ page (HTML, each question a heading, its answer the
// paragraph under it). The answer quotes the paragraph that answers the question, not the FAQ's
// own question, which only repeated the user's question back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "./helpers.ts";

const QA: [string, string][] = [
  ["How do I reset my password?", 'Click "Forgot password" on the login page. The reset link is valid for 2 hours.'],
  ["What payment methods do you accept?", "We accept Visa, Mastercard, SEPA direct debit and PayPal."],
  ["Where is my invoice?", "Invoices are emailed on the first business day of each month and are also available under Billing in your account."],
];
const FAQ = `<!doctype html><html><head><title>Customer FAQ</title></head><body><h1>Customer FAQ</h1>
${QA.map(([q, a]) => `<h2>${q}</h2><p>${a.replace(/"/g, "&quot;")}</p>`).join("\n")}
</body></html>`;

let k: Kbqa;
let org: Org;
let kb: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  kb = await corpus(org, "faq");
  await ingest(k, org, kb, "faq.html", FAQ, "text/html");
}, 120_000);
afterAll(() => k?.stop());

const quotes = (answer: string) => answer.split(/\s*\[\d+\]\s*/).map((s) => s.trim()).filter(Boolean);

describe("an FAQ page", () => {
  for (const [i, asked] of ["How do I reset my password?", "What payment methods do you accept?", "Where can I find my invoice?"].entries()) {
    test(`"${asked}" is answered by the paragraph under the FAQ's question`, async () => {
      const r = await ask(org, await session(org, [kb]), asked);
      expect(r.status).toBe(200);
      const body: string = r.body.answer.body;
      const [faqQuestion, faqAnswer] = QA[i]!;
      const qs = quotes(body);
      expect(qs.length).toBeGreaterThan(0);
      // every quote is a sentence of the answering paragraph, none is a question
      for (const q of qs) {
        expect(q.endsWith("?")).toBe(false);
        expect(faqAnswer).toContain(q.split(/(?<=\.)\s+/)[0]!);
      }
      expect(body).not.toContain(faqQuestion);
      expect(r.body.answer.attachment).toBeGreaterThan(0);
    });
  }
});
