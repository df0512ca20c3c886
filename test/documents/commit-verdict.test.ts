import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, sql } from "./helpers.ts";
import { docx, docxParts, utf8, zipOf } from "../convert/fixtures.ts";

// A PUT with a declared length is judged by the storage route while it holds the body, and commit
// uses that verdict instead of reading the object back. A streamed (chunked) PUT is not judged,
// so commit reads the file as before. Both ways must refuse exactly the same bytes, in the same words.
let k: Kbqa;
let a: Org;
let judgedCorpus: string;
let readCorpus: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org("A");
  [judgedCorpus, readCorpus] = await Promise.all([corpus(a, "judged by the route"), corpus(a, "read at commit")]);
});
afterAll(() => k.stop());

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const big = (s: string) => utf8(s.repeat(Math.ceil(100_000 / s.length))); // past the size written with O_DIRECT
const withByte = (b: Uint8Array, at: number, v: number) => (b[at] = v, b);

const cases: [string, string, () => Promise<Uint8Array> | Uint8Array][] = [
  ["small valid text", "text/plain", () => utf8(`plain text ${crypto.randomUUID()}\n`)],
  ["large valid text", "text/markdown", () => big(`# Über 名前 ${crypto.randomUUID()}\n`)],
  ["invalid UTF-8 deep inside a large text", "text/plain", () => withByte(big("abc "), 90_001, 0xff)],
  ["a NUL byte", "application/json", () => utf8('{"a": "b\u0000"}')],
  ["UTF-16LE with its byte-order mark", "text/plain", () => new Uint8Array([0xff, 0xfe, 0x41, 0x00, 0x42, 0x00])],
  ["UTF-16LE cut in a character", "text/plain", () => new Uint8Array([0xff, 0xfe, 0x41, 0x00, 0x42])],
  ["text declared as PDF", "application/pdf", () => utf8("no header here")],
  ["a PDF header", "application/pdf", () => utf8(`%PDF-1.4\n% ${crypto.randomUUID()}\n`)],
  ["a DOCX", DOCX, () => docx({ "word/extra.txt": crypto.randomUUID() })],
  ["a zip without [Content_Types].xml", DOCX, () => zipOf({ ...docxParts({ "[Content_Types].xml": null }), "n.txt": crypto.randomUUID() })],
  ["text declared as DOCX", DOCX, () => utf8("PK but not really")],
];

/** A PUT whose body is a stream: sent chunked, without Content-Length. */
async function putStreamed(url: string, bytes: Uint8Array, contentType: string) {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes.slice(0, bytes.length >> 1));
      c.enqueue(bytes.slice(bytes.length >> 1));
      c.close();
    },
  });
  const r = await fetch(url, { method: "PUT", body, headers: { "content-type": contentType } });
  return r.status;
}

test("commit answers the same whether the route judged the bytes or commit read them back", async () => {
  const seen = new Set<number>();
  for (const [name, contentType, make] of cases) {
    const bytes = await make();
    const outcome = async (corpusId: string, streamed: boolean) => {
      const i = await initOk(a, { corpusId, contentType, filename: "f" });
      const status = streamed ? await putStreamed(i.uploadUrl, bytes, contentType) : (await put(i.uploadUrl, bytes, contentType)).status;
      expect({ name, streamed, status }).toEqual({ name, streamed, status: 200 });
      const [grant] = sql<{ inspected: number | null }>(k, "SELECT inspected FROM upload_grants WHERE document_id = ?", i.document.id);
      const c = await a.api("POST", `/v1/doc/${i.document.id}/commit`);
      seen.add(c.status);
      return { status: c.status, message: c.body.message ?? null, judgedByRoute: grant!.inspected === 1 };
    };
    const judged = await outcome(judgedCorpus, false);
    const read = await outcome(readCorpus, true);
    expect({ name, judged: { ...judged, judgedByRoute: undefined }, routeJudged: judged.judgedByRoute, readJudged: read.judgedByRoute }).toEqual({
      name,
      judged: { ...read, judgedByRoute: undefined },
      routeJudged: true,
      readJudged: false,
    });
  }
  expect([...seen].sort()).toEqual([202, 415]); // both verdicts were compared
});
