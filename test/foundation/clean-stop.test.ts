// After a clean stop the database file holds everything: the server keeps statements prepared
// for the life of its connection, which stopped close() from checkpointing, so a copy of
// kbqa.sqlite without its -wal file had no tables at all.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startKbqa, tempDir } from "../helpers/server.ts";

test("a stopped server's kbqa.sqlite alone has its data; --help states the defaults", async () => {
  using data = tempDir();
  using copy = tempDir();
  const k = await startKbqa({ dataDir: data.path });
  const org = await k.org("kept-org");
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "kept-corpus" })).body.id;
  expect(await k.stop()).toBe(0);

  copyFileSync(join(data.path, "kbqa.sqlite"), join(copy.path, "kbqa.sqlite"));
  const db = new Database(join(copy.path, "kbqa.sqlite"), { readonly: true });
  try {
    expect(db.query("SELECT id, name FROM corpora WHERE id = ?").get(corpusId)).toEqual({ id: corpusId, name: "kept-corpus" });
  } finally {
    db.close();
  }

  const help = (await runCli(["--help"])).stdout;
  expect(help).toContain("--port                       KBQA_PORT                      port (0 picks a free one) (default: 8080)");
  expect(help).toContain("ingestion worker processes (default: one per core)");
});
