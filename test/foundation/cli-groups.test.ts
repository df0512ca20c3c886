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

test("an unknown subcommand of a group is named as such and answered with that group's subcommands, not the whole usage", async () => {
  const org = await run("org", "delete", "x");
  expect(org).toEqual({
    code: 2,
    stdout: "",
    stderr: [
      'kbqa: unknown subcommand "org delete"; the subcommands of "org" are:',
      `  kbqa ${"org create NAME".padEnd(58)} Create an organization; prints {id, name}.`,
      `  kbqa ${"org list".padEnd(58)} List organizations as a JSON array.`,
      "",
    ].join("\n"),
  });
  // Every group shares the rule, --help included (there is no help for a subcommand that does not exist).
  for (const [group, sub, listed] of [["key", "remove", "kbqa key deactivate KID"], ["models", "nope", "kbqa models fetch [NAME ...]"]] as const) {
    const r = await run(group, sub, "--help");
    const lines = r.stderr.split("\n");
    expect([r.code, r.stdout, lines[0], lines.some((l) => l.startsWith(`  ${listed}`)), lines.some((l) => l.includes("--data"))]).toEqual([
      2,
      "",
      `kbqa: unknown subcommand "${group} ${sub}"; the subcommands of "${group}" are:`,
      true,
      false,
    ]);
  }
  // A word that is no group is still an unknown command, told with the whole usage.
  const stranger = await run("orgs");
  expect([stranger.code, stranger.stderr.startsWith('kbqa: unknown command "orgs"\n\nkbqa — self-hosted')]).toEqual([2, true]);
});

test("kbqa help [command] is --help; a one-letter flag other than -h names itself and the long form", async () => {
  const all = await run("help");
  expect([all.code, all.stdout.startsWith("kbqa — "), all.stderr]).toEqual([0, true, ""]);
  expect(await run("help", "serve")).toEqual(await run("serve", "--help"));
  expect(await run("help", "org")).toEqual(await run("org", "--help"));
  const short = await run("serve", "-p", "8080");
  expect([short.code, short.stderr.split("\n")[0]]).toEqual([2, "kbqa: unknown flag -p: kbqa's flags are written in full (--port 8080, --data-dir DIR); only -h is short"]);
});
