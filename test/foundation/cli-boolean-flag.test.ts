// A boolean flag (--log-requests) takes no separate value: alone it is true, a value is written
// --log-requests=false. A word after it that the command has no room for, or that reads as its
// value (true, off, 1, …), is refused naming the flag and the way to write a value; before, it
// was told as a bare 'unexpected argument "maybe"', or `key delete --log-requests false K1`
// blamed "K1" while the operator had meant logging off.
import { expect, test } from "bun:test";
import { runCli, tempDir } from "../helpers/server.ts";

const HOW = "write --log-requests=true or --log-requests=false (--log-requests alone is true)";
const refused = (command: string, word: string, usage: string) => ({
  code: 2,
  stdout: "",
  stderr: `${command}: --log-requests takes no separate value, and "${word}" follows it; ${HOW}\n\nUsage: kbqa ${usage}\n`,
});

test("a word the command has no room for after a boolean flag names the flag and how to give it a value", async () => {
  using d = tempDir();
  expect(await runCli(["org", "list", "--log-requests", "maybe", "--data", d.path])).toEqual(refused("kbqa org list", "maybe", "org list"));
  expect(await runCli(["serve", "--log-requests", "true", "--data", d.path])).toEqual(refused("kbqa serve", "true", "serve [--host H] [--port P]"));
  // The = form is checked as a value, as before.
  expect(await runCli(["org", "list", "--log-requests=maybe", "--data", d.path])).toEqual({
    code: 2,
    stdout: "",
    stderr: 'kbqa org list: --log-requests: must be true or false, got "maybe"\n',
  });
});

test("a boolean word after a boolean flag is refused even where an argument fits: it was meant as the value", async () => {
  using d = tempDir();
  expect(await runCli(["key", "delete", "--log-requests", "false", "K1", "--data", d.path])).toEqual(refused("kbqa key delete", "false", "key delete KID"));
  expect(await runCli(["org", "create", "--log-requests", "No", "--data", d.path])).toEqual(refused("kbqa org create", "No", "org create NAME"));
  // Before the command, too: not "unknown command "false serve"".
  expect(await runCli(["--log-requests", "false", "serve", "--data", d.path])).toEqual({ code: 2, stdout: "", stderr: `kbqa: --log-requests takes no separate value, and "false" follows it; ${HOW}\n` });
  expect((await runCli(["org", "list", "--data", d.path])).stdout).toBe("[]\n");
});

test("any other word after a boolean flag is the command's argument", async () => {
  using d = tempDir();
  const r = await runCli(["org", "create", "--log-requests", "Acme", "--data", d.path]);
  expect([r.code, JSON.parse(r.stdout).name]).toEqual([0, "Acme"]);
  const flagAfter = await runCli(["org", "list", "--log-requests", "--data", d.path]);
  expect([flagAfter.code, JSON.parse(flagAfter.stdout).length]).toEqual([0, 1]);
});
