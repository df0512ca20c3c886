// The load of the in-memory vector copy from a LanceDB table (what a restart costs before the
// table's write queue moves), against, in the same run and on the same table:
//   raw       LanceDB's read of the same columns, batch by batch, nothing built (the floor)
//   previous  the load before it read Arrow's buffers (scripts/lib/lance-load-previous.ts: each
//             batch turned into rows of five strings and a vector view, then upsert())
//   current   the service's loadVectorCopy() (src/store/lance.ts: columns → VectorScan.load())
// Each measurement runs in a fresh process (the page cache is warm after the first: a restart's
// second read), kinds alternating and their order rotating from round to round, because this
// machine is shared. Reported per process: wall and CPU time (all threads, LanceDB's and the
// collector's included).
//
// Tables (made once under --dir and reused; scripts/lib/lance-seed.ts): N rows of the service's
// schema, 5 organizations, 3 corpora each, 10 chunks per document, ids as store/ids.ts makes
// them, 384 dimensions, compacted.
//
//   bun scripts/bench-vector-load.ts [--sizes 200000,500000] [--rounds 3] [--dir /tmp/kbqa-bench-load]
import { parseArgs } from "node:util";
import { COPY_COLUMNS, loadVectorCopy } from "../src/store/lance.ts";
import { loadVectorCopyPrevious } from "./lib/lance-load-previous.ts";
import { seededTable } from "./lib/lance-seed.ts";
import { loadAverage, range, runRotated } from "./lib/fresh-runs.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "200000,500000" },
    rounds: { type: "string", default: "3" },
    dir: { type: "string", default: "/tmp/kbqa-bench-load" },
    dims: { type: "string", default: "384" },
    child: { type: "string" },
    rows: { type: "string" },
  },
});
const DIMS = Number(values.dims);
const KINDS = ["raw", "previous", "current"] as const;
type Kind = (typeof KINDS)[number];
interface Result { kind: Kind; rows: number; wallS: number; cpuS: number; held?: number }

async function child(kind: Kind, n: number): Promise<Result> {
  const { conn, table } = await seededTable(values.dir!, `chunks_${n}`, n, DIMS);
  Bun.gc(true);
  const t0 = performance.now(), c0 = process.cpuUsage();
  let held: number | undefined;
  if (kind === "raw") {
    let rows = 0;
    for await (const batch of table.query().select(COPY_COLUMNS)) rows += batch.numRows;
    if (rows !== n) throw new Error(`read ${rows} rows`);
  } else {
    const copy = kind === "current" ? await loadVectorCopy(table, DIMS, () => false) : await loadVectorCopyPrevious(table, DIMS);
    if (copy?.size !== n) throw new Error(`${kind} loaded ${copy?.size} rows`);
    held = copy.bytes;
  }
  const c = process.cpuUsage(c0);
  const wallS = (performance.now() - t0) / 1000;
  table.close();
  conn.close();
  return { kind, rows: n, wallS, cpuS: (c.user + c.system) / 1e6, held };
}

if (values.child) {
  console.log(JSON.stringify(await child(values.child as Kind, Number(values.rows))));
  process.exit(0);
}

const sizes = values.sizes!.split(",").map(Number);
const rounds = Number(values.rounds);
for (const n of sizes) {
  // Made (or checked) before any timing.
  const { conn, table } = await seededTable(values.dir!, `chunks_${n}`, n, DIMS);
  table.close();
  conn.close();
}
const results = await runRotated<Result>(import.meta.path, KINDS, sizes, rounds, ["--dims", String(DIMS), "--dir", values.dir!]);

console.log(`\n${DIMS} dimensions, ${rounds} fresh processes per cell, ranges over them; load average ${await loadAverage()}\n`);
console.log("| rows | kind | wall | CPU |");
console.log("|---|---|---|---|");
for (const n of sizes) {
  for (const kind of KINDS) {
    const rs = results.filter((r) => r.rows === n && r.kind === kind);
    console.log(`| ${n.toLocaleString("en")} | ${kind} | ${range(rs.map((r) => r.wallS), 2)} s | ${range(rs.map((r) => r.cpuS), 2)} s |`);
  }
}
