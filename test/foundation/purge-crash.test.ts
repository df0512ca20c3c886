import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { present, seedBacklog } from "../helpers/purge-backlog.ts";
import { startKbqa, tempDir, waitFor } from "../helpers/server.ts";

// A server killed (SIGKILL) while its first purge works through a backlog: what must stay is all
// there, and the next start finishes the purge.
const HOUR = 3_600_000;

test("a purge killed part-way loses nothing that must stay, and the next start finishes it", async () => {
  using dir = tempDir();
  const db = openDb(dir.path);
  const b = seedBacklog(db, { orgId: crypto.randomUUID(), corpusId: crypto.randomUUID(), documents: 20_000, recent: 200, cutoff: Date.now() - HOUR, activeJobs: false });
  db.close();
  const count = (table: string) => {
    const d = new Database(join(dir.path, "kbqa.sqlite"), { readonly: true });
    try {
      return d.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
    } finally {
      d.close();
    }
  };
  const flags = ["--purge-after", "3600", "--purge-interval", "1"];
  const first = await startKbqa({ dataDir: dir.path, flags });
  // Jobs are purged first, tokens last: kill once jobs have started to go and tokens have not.
  await waitFor(() => count("jobs") < b.total.jobs, "the purge to begin", 30_000, 2);
  expect(count("access_tokens")).toBe(b.total.access_tokens);
  await first.stop("SIGKILL");
  let check = openDb(dir.path);
  const after = present(check);
  check.close();
  for (const t of ["jobs", "upload_grants", "access_tokens"] as const) {
    expect([...b.kept[t]].filter((x) => !after[t].has(x as never))).toEqual([]);
  }
  expect(after.access_tokens.size).toBe(b.total.access_tokens);

  const second = await startKbqa({ dataDir: dir.path, flags });
  try {
    await waitFor(() => count("access_tokens") === b.kept.access_tokens.size, "the next start to finish the purge");
  } finally {
    await second.stop();
  }
  check = openDb(dir.path);
  expect(present(check)).toEqual(b.kept);
  check.close();
}, 120_000);
