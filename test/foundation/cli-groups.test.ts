import { expect, test } from "bun:test";
import { join } from "node:path";

// Command groups and flag errors name what is wrong (README: "kbqa <command> --help explains everything").
const CLI = join(import.meta.dir, "../../src/cli.ts");
const run = async (...args: string[]) => {
  const p = Bun.spawn(["bun", CLI, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
};

test("a group with --help lists its subcommands on stdout; alone it asks for one on stderr", async () => {
  const help = await run("org", "--help");
  expect([help.code, help.stdout.includes("kbqa org create NAME"), help.stdout.includes("kbqa org list")]).toEqual([0, true, true]);
  const bare = await run("key");
  expect([bare.code, bare.stdout, bare.stderr.includes('"key" needs a subcommand'), bare.stderr.includes("kbqa key deactivate KID")]).toEqual([2, "", true, true]);
});

test("an unknown flag is reported as unknown even as the last argument; a known one without value as missing", async () => {
  const bogus = await run("serve", "--bogus");
  expect([bogus.code, bogus.stderr.split("\n")[0]]).toEqual([2, "kbqa serve: unknown flag --bogus"]);
  const port = await run("serve", "--port");
  expect([port.code, port.stderr.split("\n")[0]]).toEqual([2, "kbqa serve: --port needs a value"]);
});
