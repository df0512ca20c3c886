// A chunk table of N rows with the service's schema (src/store/lance-rows.ts), for benchmarks of
// reading it: 5 organizations holding 50/20/15/10/5 % of the documents, 3 corpora each, 10
// chunks per document, ids as store/ids.ts makes them (documents newId(), chunks orderedId()),
// vectors uniform in [-1, 1), texts of about 600 characters. Written in adds of 10,000 rows
// (what ingestion's grouped replaces come to, roughly) and compacted once, as the background
// optimize leaves a big table.
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { newId, orderedId } from "../../src/store/ids.ts";
import { chunkSchema, toArrowTable } from "../../src/store/lance-rows.ts";
import type { VectorRecord } from "../../src/store/vector.ts";

const ORG_SHARE = [0.5, 0.2, 0.15, 0.1, 0.05];
const PER_DOC = 10;
const ADD = 10_000;

/**
 * Opens table `name` in dir, first creating and filling it unless a previous run finished it
 * (the marker file `<dir>/<name>.done`; an unfinished one is dropped and made again).
 */
export async function seededTable(dir: string, name: string, rows: number, dims: number): Promise<{ conn: lancedb.Connection; table: lancedb.Table }> {
  const conn = await lancedb.connect(dir);
  const done = Bun.file(join(dir, name + ".done"));
  if (await done.exists()) return { conn, table: await conn.openTable(name) };
  if ((await conn.tableNames()).includes(name)) await conn.dropTable(name);
  const table = await conn.createEmptyTable(name, chunkSchema(dims));
  const orgs = ORG_SHARE.map(() => newId());
  const corpora = orgs.map(() => [newId(), newId(), newId()]);
  const words = Array.from({ length: 2000 }, (_, i) => "w" + i.toString(36));
  let org = 0, corpus = "", doc = "";
  for (let at = 0; at < rows; at += ADD) {
    const records: VectorRecord[] = [];
    for (let i = at; i < Math.min(rows, at + ADD); i++) {
      if (i % PER_DOC === 0) {
        const u = Math.random();
        org = 0;
        for (let acc = ORG_SHARE[0]!; u > acc && org < ORG_SHARE.length - 1; acc += ORG_SHARE[++org]!);
        corpus = corpora[org]![Math.floor(Math.random() * 3)]!;
        doc = newId();
      }
      const text = Array.from({ length: 100 }, () => words[Math.floor(Math.random() * words.length)]).join(" ");
      const vector = Float32Array.from({ length: dims }, () => Math.random() * 2 - 1);
      records.push({ chunkId: orderedId(), orgId: orgs[org]!, corpusId: corpus, documentId: doc, generation: 1 + (i % 3), text, vector });
    }
    await table.add(toArrowTable(records, dims, name));
    if (at % 100_000 === 0) console.error(`  seeding ${name}: ${at.toLocaleString("en")} rows`);
  }
  await table.optimize({ cleanupOlderThan: new Date() });
  await Bun.write(done, String(rows));
  return { conn, table };
}
