// Every configuration value that is wrong is told in words: the flag (and the variable when the
// value came from one), the value, and what is allowed — never a regex or a library's text.
import { expect, test } from "bun:test";
import { ConfigError, FIELDS, loadConfig } from "../../src/config.ts";
import { runCli, tempDir } from "../helpers/server.ts";

const message = (flags: Record<string, string>, env: Record<string, string> = {}) => {
  try {
    loadConfig(flags, env, "/tmp");
    return "accepted";
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
};

test("URLs, origins, booleans and the host say what they expect", () => {
  expect(message({ "public-url": "notaurl" })).toBe('--public-url: must be an http:// or https:// URL (e.g. https://kb.example.com), got "notaurl"');
  expect(message({ "public-url": "https://" })).toBe('--public-url: must be an http:// or https:// URL (e.g. https://kb.example.com), got "https://"');
  expect(message({ "remote-url": "notaurl" })).toBe('--remote-url: must be an http:// or https:// URL (e.g. http://127.0.0.1:11434/v1), got "notaurl"');
  expect(message({ "cors-origins": "x" })).toBe(
    '--cors-origins: must be "*", "none" or a comma-separated list of http:// or https:// origins (e.g. https://a.example,https://b.example), got "x"',
  );
  expect(message({ "log-requests": "maybe" })).toBe('--log-requests: must be true or false, got "maybe"');
  expect(message({}, { KBQA_LOG_REQUESTS: "maybe" })).toBe('--log-requests (KBQA_LOG_REQUESTS): must be true or false, got "maybe"');
  expect(message({ host: "999.1.1.1" })).toBe(
    '--host: must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::1, localhost), got "999.1.1.1"',
  );
  expect(message({ host: "not a host" })).toContain('got "not a host"');
  for (const ok of <Record<string, string>[]>[{ host: "::" }, { host: "kb-1.example.org" }, { "log-requests": "false" }, { "remote-url": "http://127.0.0.1:1/v1" }]) {
    expect(message(ok)).toBe("accepted");
  }
  expect(loadConfig({ "log-requests": "0" }, {}).logRequests).toBe(false);
  expect(loadConfig({}, { KBQA_LOG_REQUESTS: "yes" }).logRequests).toBe(true);
});

test("numbers state their range, from the schema", () => {
  expect(message({ port: "70000" })).toBe('--port: must be an integer from 0 to 65535, got "70000"');
  expect(message({ workers: "0" })).toBe('--workers: must be an integer from 1 to 64, got "0"');
  expect(message({ "max-upload-bytes": "1e6" })).toBe('--max-upload-bytes: must be an integer of at least 1, got "1e6"');
  expect(message({ "max-upload-bytes": "99999999999999999999" })).toBe('--max-upload-bytes: must be an integer of at least 1, got "99999999999999999999"');
  expect(message({}, { KBQA_PORT: "-1" })).toBe('--port (KBQA_PORT): must be an integer from 0 to 65535, got "-1"');
  expect(message({ "preview-max-pages": "-1" })).toBe('--preview-max-pages: must be an integer of at least 0, got "-1"');
  expect(message({ "preview-bytes-ratio": "5000" })).toBe('--preview-bytes-ratio: must be an integer from 0 to 1000, got "5000"');
  expect(message({ "preview-reserve-bytes": "1GiB" })).toBe('--preview-reserve-bytes: must be an integer of at least 0, got "1GiB"');
});

test("every flag refuses an explicitly empty value, naming itself; an empty variable is the default", () => {
  for (const f of FIELDS) {
    if (f.kind === "bool") continue; // --log-requests alone means true; --log-requests= is checked below
    expect(message({ [f.flag]: "" })).toStartWith(`--${f.flag} is empty; give `);
    expect(message({}, { [f.env]: "" })).toBe("accepted");
  }
  expect(message({ "log-requests": "" })).toBe("--log-requests is empty; give true or false, or leave the flag out for the default (off)");
});

test("the CLI prints the message as one line naming the command, exit 2", async () => {
  using d = tempDir();
  const r = await runCli(["org", "list", "--cors-origins", "x", "--data", d.path]);
  expect([r.code, r.stdout, r.stderr]).toEqual([
    2,
    "",
    'kbqa org list: --cors-origins: must be "*", "none" or a comma-separated list of http:// or https:// origins (e.g. https://a.example,https://b.example), got "x"\n',
  ]);
});
