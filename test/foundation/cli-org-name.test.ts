// `org create NAME` holds a name to the API's corpus-name rule (1 to 256 characters, not only
// blanks, no control characters): before, a blank, multi-line or 100,000-character name was stored.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/server.ts";

const RULE = "must be 1 to 256 characters, not only blanks, without control characters";
const refused = (got: string) => ({ code: 2, stdout: "", stderr: `kbqa org create: NAME: ${RULE} (got ${got})\n\nUsage: kbqa org create NAME\n` });

test("a blank name, a name with a control character and an over-long name are refused with exit 2; nothing is stored", async () => {
  using d = tempDir();
  const data = join(d.path, "data");
  expect(await runCli(["org", "create", "   ", "--data", data])).toEqual(refused('"   "'));
  expect(await runCli(["org", "create", "bad\nname", "--data", data])).toEqual(refused('"bad\\nname"'));
  expect(await runCli(["org", "create", "tab\there", "--data", data])).toEqual(refused('"tab\\there"'));
  // Too long to echo: its length is told instead.
  expect(await runCli(["org", "create", "x".repeat(100_000), "--data", data])).toEqual(refused("100000 characters"));
  expect(await runCli(["org", "create", "x".repeat(257), "--data", data])).toEqual(refused("257 characters"));
  // Refused before the data directory is created: a typo leaves no empty tree behind.
  expect(existsSync(data)).toBe(false);
});

test("names at the rule's edges are accepted and stored as given", async () => {
  using d = tempDir();
  for (const name of ["x".repeat(256), " padded ", "Ünïcode 名前"]) {
    const r = await runCli(["org", "create", name, "--data", d.path]);
    expect([r.code, JSON.parse(r.stdout).name]).toEqual([0, name]);
  }
  const listed = await runCli(["org", "list", "--data", d.path]);
  expect(JSON.parse(listed.stdout).map((o: { name: string }) => o.name)).toEqual(["x".repeat(256), " padded ", "Ünïcode 名前"]);
});
