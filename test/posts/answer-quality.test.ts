// End to end on the built-in tier, over a small company knowledge base: a handbook PDF with one
// topic per page, a policy, a price list and an office list (CSV), an FAQ page (HTML) and a
// Spanish PDF. Each answer is checked by properties: what it quotes is in the document it cites,
// on the page it cites, and nothing from another topic rides along.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "./helpers.ts";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** Page i of the PDF: a bold title, then its lines. */
async function titledPdf(pages: { title: string; lines: string[] }[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const body = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (const p of pages) {
    const page = doc.addPage([595, 842]);
    page.drawText(p.title, { x: 50, y: 780, size: 20, font: bold });
    p.lines.forEach((l, i) => page.drawText(l, { x: 50, y: 740 - i * 16, size: 11, font: body }));
  }
  return doc.save();
}

const HANDBOOK = [
  { title: "Employee Handbook", lines: ["This handbook applies to all employees from 1 January 2025."] },
  { title: "1. Working hours", lines: ["The standard working week is 38 hours, Monday to Friday.", "Core hours are from 10:00 to 15:00."] },
  { title: "2. Annual leave", lines: ["Full-time employees receive 28 days of paid annual leave per year.", "Part-time employees receive leave pro rata to their contracted working days."] },
  { title: "3. Expenses", lines: ["The daily meal allowance for business travel is 32 euros."] },
  { title: "4. Remote work", lines: ["Employees may work remotely up to three days per week.", "The home office allowance is 50 euros per month."] },
  { title: "5. Parental leave", lines: ["Parents are entitled to 16 weeks of paid parental leave."] },
];
const POLICY = `# Security policy

Passwords must be at least 14 characters long.

Two-factor authentication is mandatory for all company accounts.
`;
const PRICES = `Product,SKU,Monthly price (EUR)
Basic plan,NW-BAS-01,9.9
Pro plan,NW-PRO-02,29
Enterprise plan,NW-ENT-03,99
`;
const OFFICES = `City,Address,Phone
Berlin,Friedrichstrasse 10,+49 30 1234567
Munich,Leopoldstrasse 55,+49 89 7654321
`;

let k: Kbqa;
let org: Org;
let kb: string;
const docs: Record<string, string> = {};
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  kb = await corpus(org, "company");
  docs.handbook = await ingest(k, org, kb, "handbook.pdf", await titledPdf(HANDBOOK), "application/pdf");
  docs.policy = await ingest(k, org, kb, "security-policy.md", POLICY);
  docs.prices = await ingest(k, org, kb, "prices.csv", PRICES, "text/csv");
  docs.offices = await ingest(k, org, kb, "offices.csv", OFFICES, "text/csv");
}, 120_000);
afterAll(() => k?.stop());

/** The quoted pieces of an answer: the text between its [n] markers. */
const quotes = (answer: string) => answer.split(/\s*\[\d+\]\s*/).map((s) => s.trim()).filter(Boolean);
const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/** The text of a document's chunks (the summary chunk left out). */
async function chunkText(docId: string): Promise<string> {
  const r = await org.api("GET", `/v1/chunk/q?documentId=${docId}&body=true&pageSize=25`);
  expect(r.status).toBe(200);
  return flat(r.body.items.filter((c: any) => c.metadata?.kind !== "summary").map((c: any) => c.body).join("\n"));
}

async function askOnce(question: string) {
  const r = await ask(org, await session(org, [kb]), question);
  expect(r.status).toBe(200);
  const att = await org.api("GET", `/v1/post/attachment/${r.body.answer.id}`);
  expect(att.status).toBe(200);
  return { answer: r.body.answer.body as string, attachments: (att.body.items ?? att.body) as { docId: string; pages: number[] }[] };
}

describe("what is quoted beside the best sentence", () => {
  test("a sentence sharing one word with the question is not quoted, nor its document cited", async () => {
    // "long" of "How long" is in the password rule; the parental leave page holds the answer.
    const { answer, attachments } = await askOnce("How long is parental leave?");
    const handbook = await chunkText(docs.handbook!);
    expect(answer).toContain(HANDBOOK[5]!.lines[0]!);
    for (const q of quotes(answer)) expect(handbook).toContain(q);
    expect(attachments.map((a) => a.docId)).toEqual([docs.handbook!]);
  });

  test("another topic sharing a word ('office') is not quoted beside a table row", async () => {
    const { answer, attachments } = await askOnce("What is the phone number of the Munich office?");
    expect(quotes(answer).length).toBeGreaterThan(0);
    for (const q of quotes(answer)) expect(q).toContain("Munich");
    expect(attachments.map((a) => a.docId)).toEqual([docs.offices!]);
  });
});

describe("the summary's record lines of a price table", () => {
  test("only the row of the product asked about is quoted, not the lines its field names match", async () => {
    const { answer, attachments } = await askOnce("What is the SKU of the Enterprise plan?");
    expect(quotes(answer).length).toBeGreaterThan(0);
    for (const q of quotes(answer)) expect(q).toContain("Enterprise plan");
    expect(attachments.map((a) => a.docId)).toEqual([docs.prices!]);
  });
});
