import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, waitFor, type Kbqa } from "../helpers/server.ts";
import { DOCX } from "../../src/ingest/formats.ts";
import { newId } from "../../src/store/ids.ts";
import { previewKey } from "../../src/store/blob-keys.ts";
import { readConverted } from "../../src/ingest/converted.ts";
import { FsBlobStore } from "../../src/store/fs-blob.ts";
import type { Db } from "../../src/store/db.ts";
import { docx, patchDeclaredSizes, textPdf, utf8 } from "../convert/fixtures.ts";
import { chunkRows, docState, openTestDb, seedDoc, vectorCount, type Seed } from "./seed.ts";

let k: Kbqa;
let db: Db;
const orgId = newId();
const corpusId = newId();

beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "2"] });
  db = openTestDb(k.dataDir);
});
afterAll(async () => {
  db?.close();
  await k?.stop();
});

const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const ingest = async (s: Omit<Seed, "orgId" | "corpusId">, ms = 100_000) => {
  const id = await seedDoc(db, k.dataDir, { orgId, corpusId, ...s });
  await waitFor(() => ["READY", "FAILED"].includes(docState(db, id).status), `document ${id} settled`, ms);
  return id;
};

describe("ingestion through the real server", () => {
  test("a multi-page PDF: READY, summary chunk first, chunks with pages and hashes, counters, vectors, markdown, previews", async () => {
    const id = await ingest({ bytes: await textPdf(3, 2), contentType: "application/pdf", chunk: { combine_text_under_n_chars: 0 } });
    const d = docState(db, id);
    expect(d).toMatchObject({ status: "READY", status_msg: null, stage: null, nb_pages: 3, nb_words: 66, lang: "en" });
    expect(d.tokens).toBeGreaterThan(0);
    const rows = chunkRows(db, id);
    expect(rows.map((r) => [JSON.parse(r.pages), JSON.parse(r.metadata).kind, r.first_page, r.seq])).toEqual([
      [[], "summary", 0, 0], [[1], "chunk", 1, 1], [[2], "chunk", 2, 2], [[3], "chunk", 3, 3],
    ]);
    expect(rows[0]!.body).toBe(d.summary!);
    expect(rows[1]!.body).toStartWith("Chapter 1\n\nBody line 1 of page 1");
    for (const r of rows) expect(r.hash).toBe(md5(r.body));
    expect(await vectorCount(k.dataDir, orgId, id, 1)).toBe(rows.length);
    expect(await readConverted(db, new FsBlobStore(join(k.dataDir, "blobs")), orgId, id, 1)).toContain("Body line 1 of page 1");
    const usage = db.query<{ amount: number }, [string]>("SELECT amount FROM usage_events WHERE org_id = ? AND metric = 'tokens' AND source = 'document'").all(orgId);
    expect(usage.map((u) => u.amount)).toContain(d.tokens!);
    // Previews come after READY, in the background.
    await waitFor(() => [0, 1, 2].every((p) => (["SMALL", "MEDIUM"] as const).every((s) =>
      existsSync(join(k.dataDir, "blobs", previewKey(orgId, id, 1, p, s))))), "previews written", 60_000);
  });

  const formats: [string, Uint8Array | (() => Promise<Uint8Array>), string, number][] = [
    ["DOCX", docx, DOCX, 2],
    ["HTML", utf8("<html><body><h1>Hi</h1><p>Para one is here.</p><script>x()</script></body></html>"), "text/html", 1],
    ["Markdown", utf8("# A\n\nalpha text\n\n# B\n\nbeta text"), "text/markdown", 1],
    ["plain text", utf8("Just some plain text.\n\nAnother paragraph."), "text/plain", 1],
    ["CSV", utf8("name,qty\nbolt,3\n"), "text/csv", 1],
  ];
  for (const [name, bytes, contentType, nChunks] of formats) {
    test(`${name}: READY with chunks == vectors`, async () => {
      const id = await ingest({ bytes: typeof bytes === "function" ? await bytes() : bytes, contentType });
      expect(docState(db, id)).toMatchObject({ status: "READY", nb_pages: 0 });
      const rows = chunkRows(db, id);
      expect(rows.length).toBe(nChunks + 1);
      expect(JSON.parse(rows[0]!.metadata)).toEqual({ kind: "summary" });
      expect(await vectorCount(k.dataDir, orgId, id)).toBe(rows.length);
    });
  }

  test("lang: kept when set, detected when unset", async () => {
    const fr = "Le chat est sur la table et il dort dans la maison pour la nuit.";
    const a = await ingest({ bytes: utf8(fr), contentType: "text/plain" });
    expect(docState(db, a).lang).toBe("fr");
    const b = await ingest({ bytes: utf8(fr), contentType: "text/plain", lang: "de" });
    expect(docState(db, b).lang).toBe("de");
  });

  const failures: [string, () => Promise<Uint8Array> | Uint8Array, string, unknown, RegExp][] = [
    ["unknown chunk key", () => utf8("text"), "text/plain", { nope: 1 }, /^invalid chunking configuration: chunk\.nope/],
    ["new_after_n_chars above max_characters", () => utf8("text"), "text/plain", { max_characters: 10, new_after_n_chars: 20 }, /chunk\.new_after_n_chars/],
    ["zip bomb DOCX (declared size)", async () => patchDeclaredSizes(await docx(), 0x7fffffff), DOCX, undefined, /size|limit/i],
    ["XML with a DOCTYPE", () => docx({ "word/document.xml": '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "a">]><x/>' }), DOCX, undefined, /DOCTYPE/],
  ];
  for (const [name, bytes, contentType, chunk, reason] of failures) {
    test(`FAILED with a reason: ${name}`, async () => {
      const id = await ingest({ bytes: await bytes(), contentType, chunk });
      const d = docState(db, id);
      expect(d.status).toBe("FAILED");
      expect(d.status_msg).toMatch(reason);
      expect(chunkRows(db, id)).toEqual([]);
      expect(await vectorCount(k.dataDir, orgId, id)).toBe(0);
    });
  }

  test("a 10 MB one-line HTML and 100,000 nested elements finish", async () => {
    const big = await ingest({ bytes: utf8("<p>" + "word ".repeat(2_000_000) + "</p>"), contentType: "text/html" });
    const nested = await ingest({ bytes: utf8("<div>".repeat(100_000) + "deep text" + "</div>".repeat(100_000)), contentType: "text/html" });
    expect(docState(db, big).status).toBe("READY");
    expect(docState(db, nested).status).toBe("READY");
    expect(await vectorCount(k.dataDir, orgId, big)).toBe(chunkRows(db, big).length);
  }, 200_000);
});
