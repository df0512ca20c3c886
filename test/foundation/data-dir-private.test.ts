// The data directory holds every organization's documents, questions and answers: with the usual
// umask 022 serve and org create made it 0755 and kbqa.sqlite, the blobs and LanceDB 0644, so any
// local account could read every tenant's data. Everything a command creates there is now the
// running user's alone.
import { expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { runCli, startKbqa, tempDir } from "../helpers/server.ts";
import { corpus, ingest } from "../posts/helpers.ts";

/** Every path under `root` (itself included) whose mode grants anything to group or others. */
function shared(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const s = statSync(p);
    if (s.mode & 0o077) out.push(`${(s.mode & 0o777).toString(8)} ${p.slice(root.length) || "/"}`);
    if (s.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  walk(root);
  return out;
}

test("org create makes a private data directory", async () => {
  using t = tempDir();
  const data = join(t.path, "data");
  const r = await runCli(["org", "create", "Acme", "--data", data]);
  expect(r.code).toBe(0);
  expect(shared(data)).toEqual([]);
});

test("serve keeps the data directory and everything it writes there private, ingestion included", async () => {
  using t = tempDir();
  const data = join(t.path, "data");
  await using k = await startKbqa({ dataDir: data, modelsDir: join(t.path, "models") });
  const org = await k.org();
  const c = await corpus(org);
  await ingest(k, org, c, "a.md", "# Leave\n\nEmployees get 25 days of paid leave.\n");
  // The test helper writes the organization's public key into the directory itself: not the server's file.
  expect(shared(data).filter((p) => !p.endsWith(".pem"))).toEqual([]);
  expect(readdirSync(data).sort()).toEqual(expect.arrayContaining(["blobs", "kbqa.sqlite", "lance", "storage.secret"]));
});
