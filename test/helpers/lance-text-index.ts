// Read straight from LanceDB, beside the driver under test: how many rows its full-text index
// does not cover yet. A separate connection, so the driver's own handle and caches play no part.
import * as lancedb from "@lancedb/lancedb";
import { tableNameFor } from "../../src/store/lance.ts";

export async function unindexedTextRows(dir: string, embedderId: string): Promise<number> {
  const conn = await lancedb.connect(dir);
  try {
    const t = await conn.openTable(tableNameFor(embedderId));
    const name = (await t.listIndices()).find((i) => i.columns.includes("text"))!.name;
    return (await t.indexStats(name))!.numUnindexedRows;
  } finally {
    conn.close();
  }
}
