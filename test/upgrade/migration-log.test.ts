// An upgrade applies the migrations the data directory has not had before the server listens;
// filling a new index over a big directory takes seconds (sessions-002: 14 s at 111,000
// sessions), and the operator saw nothing until "listening". Each one is now logged, before and
// after with its time, on an upgrade only: a new directory gets them all silently.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ALL_MIGRATIONS } from "../../src/store/db.ts";
import { startKbqa, tempDir } from "../helpers/server.ts";

const migrationLines = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => l.startsWith("{") && l.includes("migration"))
    .map((l) => JSON.parse(l) as { msg: string; migration: string; ms?: number });

test("a directory of the previous version: its one new migration is logged before and after, and the server serves", async () => {
  using dir = tempDir();
  // The schema as the version before sessions-002 left it.
  const db = new Database(join(dir.path, "kbqa.sqlite"), { create: true, strict: true });
  db.exec("CREATE TABLE _migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  for (const m of ALL_MIGRATIONS.filter((m) => m.id !== "sessions-002")) {
    db.exec(m.sql);
    db.query("INSERT INTO _migrations (id, applied_at) VALUES (?, ?)").run(m.id, 1);
  }
  db.close();

  await using k = await startKbqa({ dataDir: dir.path });
  expect((await fetch(`${k.url}/pub/ping`)).status).toBe(200);
  const lines = migrationLines(k.stderr());
  expect(lines.map(({ msg, migration }) => ({ msg, migration }))).toEqual([
    { msg: "applying a database migration", migration: "sessions-002" },
    { msg: "database migration applied", migration: "sessions-002" },
  ]);
  expect(typeof lines[1]!.ms).toBe("number");
});

test("a new data directory is migrated without a line per migration", async () => {
  await using k = await startKbqa();
  expect((await fetch(`${k.url}/pub/ping`)).status).toBe(200);
  expect(migrationLines(k.stderr())).toEqual([]);
});
