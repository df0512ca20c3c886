// Directory flags: a file given as a directory is named; only `serve` and `org create` create the
// data directory, the other commands need it to exist (README "Operator CLI").
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/server.ts";

const run = async (args: string[], env: Record<string, string> = {}) => {
  const r = await runCli(args, env);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};
const failure = (stderr: string) => ({ code: 1, stdout: "", stderr: `${stderr}\n` });

test("--data or --models naming a file: 'is not a directory', for every command that uses it", async () => {
  using d = tempDir();
  const file = join(d.path, "plain-file");
  writeFileSync(file, "x");
  for (const cmd of [["org", "list"], ["org", "create", "A"], ["key", "list"], ["key", "delete", "k"], ["serve", "--port", "0"]]) {
    expect(await run([...cmd, "--data", file])).toEqual(failure(`kbqa ${cmd.slice(0, cmd[0] === "serve" ? 1 : 2).join(" ")}: --data: ${file} is not a directory`));
  }
  expect(await run(["org", "list"], { KBQA_DATA_DIR: file })).toEqual(failure(`kbqa org list: --data (KBQA_DATA_DIR): ${file} is not a directory`));
  for (const cmd of [["models", "list"], ["models", "fetch"], ["selftest"]]) {
    expect(await run([...cmd, "--models", file])).toEqual(failure(`kbqa ${cmd.join(" ")}: --models: ${file} is not a directory`));
  }
  expect(await run(["serve", "--port", "0", "--data", join(d.path, "data"), "--models", file])).toEqual(failure(`kbqa serve: --models: ${file} is not a directory`));
});

test("read-only and key commands do not create the data directory; they say it does not exist", async () => {
  using d = tempDir();
  const missing = join(d.path, "nonexistent", "dir", "x");
  for (const cmd of [["org", "list"], ["key", "list"], ["key", "add", "--org", "o", "--public-key", "k.pem"], ["key", "activate", "k"], ["key", "delete", "k"]]) {
    const name = cmd.slice(0, 2).join(" ");
    expect(await run([...cmd, "--data", missing])).toEqual(failure(`kbqa ${name}: --data: ${missing} does not exist (kbqa serve or kbqa org create makes it)`));
  }
  expect(existsSync(join(d.path, "nonexistent"))).toBe(false);
  // org create writes, so it makes the directory tree.
  const made = await run(["org", "create", "Acme", "--data", missing]);
  expect([made.code, JSON.parse(made.stdout).name, existsSync(join(missing, "kbqa.sqlite"))]).toEqual([0, "Acme", true]);
  expect((await run(["org", "list", "--data", missing])).code).toBe(0);
});

test("a missing models directory is no models (built-in ones are used), not an error", async () => {
  using d = tempDir();
  expect(await run(["models", "list", "--models", join(d.path, "none")])).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
});

test("org create says on stderr which data directory now holds the organization (stdout stays the JSON)", async () => {
  using d = tempDir();
  const dir = join(d.path, "data");
  const r = await run(["org", "create", "Acme", "--data", dir]);
  expect({ code: r.code, stdout: Object.keys(JSON.parse(r.stdout)).sort(), stderr: r.stderr }).toEqual({
    code: 0,
    stdout: ["id", "name"],
    stderr: `kbqa org create: stored in the data directory ${dir}; the server must use the same --data\n`,
  });
});
