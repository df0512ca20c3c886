// Flags and positional arguments: a flag never takes the next flag as its value, unknown flags and
// extra words are named, and an explicitly empty value is refused (README "Operator CLI").
import { expect, test } from "bun:test";
import { runCli, tempDir } from "../helpers/server.ts";

/** Exit code, first stderr line and stdout: a usage error answers on stderr only. */
const answer = async (args: string[], env: Record<string, string> = {}) => {
  const r = await runCli(args, env);
  return { code: r.code, error: r.stderr.split("\n")[0], stdout: r.stdout };
};
const usage = (error: string) => ({ code: 2, error, stdout: "" });

test("a flag followed by another flag has no value; the value is not swallowed", async () => {
  using d = tempDir();
  expect(await answer(["key", "add", "--org", "--public-key", "k.pem", "--data", d.path])).toEqual(usage("kbqa key add: --org needs a value"));
  expect(await answer(["models", "fetch", "--hub-url", "--models", d.path])).toEqual(usage("kbqa models fetch: --hub-url needs a value"));
  // The = form takes any value, dashes included.
  expect(await answer(["key", "add", "--org=--x", "--data", d.path, "--public-key"])).toEqual(usage("kbqa key add: --public-key needs a value"));
});

test("unknown flags are named, with or without a command", async () => {
  expect(await answer(["--nope"])).toEqual(usage("kbqa: unknown flag --nope"));
  expect(await answer(["--nope=1", "--data", "d"])).toEqual(usage("kbqa: unknown flag --nope"));
  expect(await answer(["key", "list", "--orgg", "x"])).toEqual(usage("kbqa key list: unknown flag --orgg"));
  expect(await answer(["ping", "--hub-url", "http://x"])).toEqual(usage("kbqa ping: unknown flag --hub-url"));
  // A known global flag without a command still asks for the command.
  expect(await answer(["--port", "1"])).toEqual(usage("kbqa: no command given"));
});

test("extra positional arguments are refused on every subcommand", async () => {
  using d = tempDir();
  expect(await answer(["org", "create", "Acme", "Corp", "--data", d.path])).toEqual(
    usage('kbqa org create: unexpected argument "Corp" (NAME is one argument: quote a value with spaces, "Acme Corp")'),
  );
  expect((await runCli(["org", "list", "--data", d.path])).stdout).toBe("[]\n");
  expect(await answer(["key", "delete", "k1", "extra", "--data", d.path])).toEqual(
    usage('kbqa key delete: unexpected argument "extra" (KID is one argument: quote a value with spaces, "k1 extra")'),
  );
  for (const cmd of [["org", "list"], ["key", "list"], ["serve"], ["ping"], ["selftest"], ["models", "list"]]) {
    expect(await answer([...cmd, "surplus", "--data", d.path])).toEqual(usage(`kbqa ${cmd.join(" ")}: unexpected argument "surplus"`));
  }
});

test("an explicitly empty flag value is refused; an empty environment variable counts as unset", async () => {
  using d = tempDir();
  expect(await answer(["serve", "--port", "", "--data", d.path])).toEqual(
    usage("kbqa serve: --port is empty; give an integer from 0 to 65535, or leave the flag out for the default (8080)"),
  );
  expect(await answer(["serve", "--host=", "--data", d.path])).toEqual(
    usage("kbqa serve: --host is empty; give an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::1, localhost), or leave the flag out for the default (127.0.0.1)"),
  );
  expect(await answer(["key", "add", "--org", "", "--public-key", "k.pem", "--data", d.path])).toEqual(usage("kbqa key add: --org is empty"));
  expect(await answer(["key", "add", "--org", "o", "--public-key", "k.pem", "--kid", "", "--data", d.path])).toEqual(usage("kbqa key add: --kid is empty"));
  expect(await answer(["org", "create", "", "--data", d.path])).toEqual(usage("kbqa org create: NAME is empty"));
  // KBQA_HOST="" is the default host: the variable is as if unset (ping then fails to connect, exit 1).
  const ping = await runCli(["ping", "--port", "1"], { KBQA_HOST: "" });
  expect([ping.code, ping.stderr]).toEqual([1, "kbqa ping: could not connect to http://127.0.0.1:1 (connection refused)\n"]);
});
