import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, errorShape, initOk, put } from "./helpers.ts";

// preview-urls on a FAILED PDF (a damaged file, or bytes that are not a PDF at all) answered 200
// with tile URLs. Tiles are rendered only after READY and a FAILED generation never becomes READY
// (new content is a new generation), so each URL could only ever answer 404 — which the README
// promises never to hand out. It now refuses like the summary of a FAILED document: 409, the reason.

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
  corpusId = await corpus(a, "failed-previews");
}, 60_000);
afterAll(() => k?.stop());

const paths = (id: string) => [`/v1/doc/${id}/preview-urls?pages=0`, `/v1/post/attachment/${id}/preview-urls?pages=0`];

async function failedPdf(filename: string, bytes: string): Promise<{ id: string; statusMsg: string }> {
  const i = await initOk(a, { corpusId, contentType: "application/pdf", filename });
  expect((await put(i.uploadUrl, bytes, "application/pdf")).status).toBe(200);
  await a.api("POST", `/v1/doc/${i.document.id}/commit`);
  const d = await waitFor(async () => {
    const r = (await a.api("GET", `/v1/doc/${i.document.id}`)).body;
    return r.status === "FAILED" && r;
  }, "the document FAILED", 60_000);
  return { id: i.document.id, statusMsg: d.statusMsg };
}

test("a PDF ingestion could not read: 409 naming the reason on both paths, no tile URL", async () => {
  const d = await failedPdf("damaged.pdf", "%PDF-1.7\n" + "garbage ".repeat(200));
  expect(d.statusMsg).toBe("could not read PDF: the file is damaged (its structure cannot be read)");
  for (const path of paths(d.id)) {
    const r = await a.api("GET", path);
    expect({ path, status: r.status, body: r.body }).toEqual({
      path,
      status: 409,
      body: { ...errorShape(409), message: `Document ingestion failed, so it has no previews: ${d.statusMsg}` },
    });
  }
}, 90_000);

test("bytes refused at commit (not a PDF): 409 with the commit's reason", async () => {
  const d = await failedPdf("not-a-pdf.pdf", "just some text, declared as a PDF");
  expect(d.statusMsg).toStartWith("The uploaded bytes are not application/pdf");
  const r = await a.api("GET", paths(d.id)[0]!);
  expect([r.status, r.body.message]).toEqual([409, `Document ingestion failed, so it has no previews: ${d.statusMsg}`]);
}, 90_000);

test("a malformed pages parameter is still the 400 it was, before the document's state", async () => {
  const d = await failedPdf("damaged-2.pdf", "%PDF-1.4\n" + "broken ".repeat(300));
  const r = await a.api("GET", `/v1/doc/${d.id}/preview-urls?pages=x`);
  expect([r.status, r.body.message]).toEqual([400, `Invalid query parameter 'pages': "x" is not an integer`]);
}, 90_000);
