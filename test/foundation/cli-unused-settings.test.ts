// A command reads only the variables of the settings it uses: a wrong KBQA_PORT (or any other
// server setting) in the operator's shell does not stop `org list`; before, it exited 2. A flag
// is still checked whatever it sets, and serve, which uses every setting, still refuses.
import { expect, test } from "bun:test";
import { ConfigError, FIELDS, loadConfig } from "../../src/config.ts";
import { runCli, tempDir } from "../helpers/server.ts";

/** Every variable that can be wrong, set to a wrong value (paths and names accept any text). */
const WRONG = Object.fromEntries(FIELDS.filter((f) => ["int", "bool", "url", "host"].includes(f.kind) || f.key === "corsOrigins").map((f) => [f.env, "not valid!"]));

test("each wrong variable is refused on its own, so the commands below really do skip them", () => {
  expect(Object.keys(WRONG)).toContain("KBQA_PORT");
  for (const [name, value] of Object.entries(WRONG)) expect(() => loadConfig({}, { [name]: value })).toThrow(ConfigError);
});

test("org, key, models and version commands run past wrong variables of settings they do not use", async () => {
  using d = tempDir();
  const env = { ...WRONG, KBQA_DATA_DIR: d.path, KBQA_MODELS_DIR: d.path };
  const made = await runCli(["org", "create", "Acme"], env);
  expect(made.code).toBe(0);
  expect(await runCli(["org", "list"], env)).toEqual({ code: 0, stdout: `[${made.stdout.trim()}]\n`, stderr: "" });
  expect(await runCli(["key", "list"], env)).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
  expect(await runCli(["models", "list"], env)).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
  expect((await runCli(["version"], env)).code).toBe(0);
  // ping uses the host and port: their variables are read, the others are not.
  expect(await runCli(["ping"], { ...env, KBQA_HOST: "127.0.0.1", KBQA_PORT: "1" })).toEqual({ code: 1, stdout: "", stderr: "kbqa ping: could not connect to http://127.0.0.1:1 (connection refused)\n" });
  expect(await runCli(["ping"], env)).toEqual({ code: 2, stdout: "", stderr: 'kbqa ping: --host (KBQA_HOST): must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::1, localhost), got "not valid!"\n' });
});

test("a flag is checked whatever it sets; serve reads every variable", async () => {
  using d = tempDir();
  expect(await runCli(["org", "list", "--port", "abc", "--data", d.path])).toEqual({ code: 2, stdout: "", stderr: 'kbqa org list: --port: must be an integer from 0 to 65535, got "abc"\n' });
  expect(await runCli(["serve", "--data", d.path], { KBQA_PORT: "abc" })).toEqual({ code: 2, stdout: "", stderr: 'kbqa serve: --port (KBQA_PORT): must be an integer from 0 to 65535, got "abc"\n' });
});
