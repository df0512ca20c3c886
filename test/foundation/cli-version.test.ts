// `kbqa --version` and `kbqa version` print the version /pub/ping serves, on stdout, exit 0.
import { expect, test } from "bun:test";
import { VERSION } from "../../src/version.ts";
import { runCli } from "../helpers/server.ts";

const printed = { code: 0, stdout: `kbqa ${VERSION}\n`, stderr: "" };

test("the flag and the word command print the same line", async () => {
  expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  expect(await runCli(["--version"])).toEqual(printed);
  expect(await runCli(["version"])).toEqual(printed);
});

test("--version wins over the rest of the line, as --help does, and takes no value", async () => {
  // Nothing runs: no organization is created, no directory is made.
  expect(await runCli(["org", "create", "Acme", "--version", "--data", "/nonexistent/kbqa"])).toEqual(printed);
  expect(await runCli(["--version=1"])).toEqual({ code: 2, stdout: "", stderr: "kbqa: --version takes no value\n" });
});

test("--help mentions both", async () => {
  const help = (await runCli(["--help"])).stdout.split("\n");
  expect(help.filter((l) => /^ {2}(kbqa version|--version) /.test(l)).map((l) => l.replace(/\s+/g, " ").trim())).toEqual([
    "kbqa version Print the version (also kbqa --version).",
    "--version print the version",
  ]);
});
