// Going back to an older kbqa after an upgrade: the older build does not know the newer one's
// tables, and before this check it started and wrote to them as if they were its own (an old
// build on a directory a newer one had migrated served and ingested without a word). It now
// refuses in one line naming the migrations it does not know, and leaves the directory as it was.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startKbqa, tempDir } from "../helpers/server.ts";

test("a data directory migrated by a newer kbqa is refused by serve and the operator commands, and left untouched", async () => {
  using dir = tempDir();
  const first = await startKbqa({ dataDir: dir.path });
  await first.org("before");
  await first.stop();
  const db = new Database(join(dir.path, "kbqa.sqlite"));
  db.run("INSERT INTO _migrations (id, applied_at) VALUES ('zz-from-a-newer-kbqa-001', 1)");
  db.close();
  const before = readFileSync(join(dir.path, "kbqa.sqlite"));

  const serve = Bun.spawn(["bun", "src/cli.ts", "serve", "--port", "0", "--data", dir.path, "--models", first.modelsDir], { stdout: "pipe", stderr: "pipe" });
  const deadline = setTimeout(() => serve.kill("SIGKILL"), 30_000);
  const [stdout, stderr, code] = await Promise.all([new Response(serve.stdout).text(), new Response(serve.stderr).text(), serve.exited]);
  clearTimeout(deadline);
  const message = `the data directory ${dir.path} was upgraded by a newer kbqa (database migrations this version does not know: zz-from-a-newer-kbqa-001); run that version or a newer one, or restore the backup taken before the upgrade`;
  expect({ code, stdout, stderr: stderr.trim() }).toEqual({ code: 1, stdout: "", stderr: `kbqa serve: ${message}` });

  const list = await runCli(["org", "list", "--data", dir.path, "--models", first.modelsDir]);
  expect({ code: list.code, stdout: list.stdout, stderr: list.stderr.trim() }).toEqual({ code: 1, stdout: "", stderr: `kbqa org list: ${message}` });
  expect(readFileSync(join(dir.path, "kbqa.sqlite")).equals(before)).toBe(true);

  // Once the newer migration is gone (a restored backup), the same directory opens again.
  const again = new Database(join(dir.path, "kbqa.sqlite"));
  again.run("DELETE FROM _migrations WHERE id = 'zz-from-a-newer-kbqa-001'");
  again.close();
  await using k = await startKbqa({ dataDir: dir.path });
  expect((await fetch(`${k.url}/pub/ping`)).status).toBe(200);
}, 120_000);
