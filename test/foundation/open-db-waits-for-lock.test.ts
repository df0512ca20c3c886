import { expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { tempDir } from "../helpers/server.ts";

// Opening the database must wait for a lock another process holds for a moment, as every later
// statement does: the journal-mode pragma ran before the busy timeout was set, so a server started
// while another connection still held the file (a closing connection's checkpoint, say) failed at
// once with "database is locked" (seen once in a full run, in purge-crash.test.ts's restart).
test("a database another process holds locked for half a second is opened once the lock is released", async () => {
  using dir = tempDir();
  const holder = Bun.spawn(["bun", "-e", `
    const { Database } = require("bun:sqlite");
    const path = ${JSON.stringify(join(dir.path, "kbqa.sqlite"))};
    const made = new Database(path, { create: true });
    made.exec("PRAGMA journal_mode = WAL");
    made.close();
    const db = new Database(path);
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("CREATE TABLE IF NOT EXISTS lock_probe (x)");
    console.log("locked");
    await Bun.sleep(500);
    db.exec("COMMIT");
    db.close();
  `], { stdout: "pipe", stderr: "inherit" });
  const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!out.includes("locked")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the lock holder exited before locking");
    out += new TextDecoder().decode(value);
  }
  const started = performance.now();
  const db = openDb(dir.path);
  const waited = performance.now() - started;
  db.close();
  await holder.exited;
  expect(holder.exitCode).toBe(0);
  // It waited for the holder rather than failing; the holder kept the lock about 500 ms.
  expect(waited).toBeGreaterThan(200);
});
