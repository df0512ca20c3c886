// A models folder whose first GGUF (the default chat model) cannot be loaded: a partial copy of a
// model, or a file that is not a GGUF model. `kbqa serve` died with node-llama-cpp's "undefined is not
// an object (evaluating 'this.ggufFileInfo.metadata.general.architecture')" and a stack; it now
// exits 1 with one line naming the file, why it cannot be loaded and what to do.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/server.ts";
import { STORIES_GGUF } from "./helpers/temp-models.ts";

async function serveWith(files: Record<string, Uint8Array | string>) {
  using d = tempDir();
  const models = join(d.path, "models");
  mkdirSync(models);
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(models, name), bytes);
  return await runCli(["serve", "--port", "0", "--data", join(d.path, "data"), "--models", models]); // before `using` removes the folder
}

test("a file that is not a GGUF model", async () => {
  expect(await serveWith({ "assistant.gguf": "not a model at all" })).toEqual({
    code: 1,
    stdout: "",
    stderr: 'kbqa serve: --models: the default chat model assistant.gguf cannot be loaded: it is not a GGUF model (the file does not start with "GGUF"); replace or remove it\n',
  });
}, 60_000);

test.skipIf(!existsSync(STORIES_GGUF))("a GGUF model cut short (its first 5,000 bytes)", async () => {
  const partial = readFileSync(STORIES_GGUF).subarray(0, 5000);
  expect(await serveWith({ "stories.gguf": partial })).toEqual({
    code: 1,
    stdout: "",
    stderr:
      "kbqa serve: --models: the default chat model stories.gguf cannot be loaded: its GGUF header is incomplete: the file looks cut short (a partial copy or download?); replace or remove it\n",
  });
}, 60_000);

test.skipIf(!existsSync(STORIES_GGUF))("the whole model still serves", async () => {
  using d = tempDir();
  const models = join(d.path, "models");
  mkdirSync(models);
  writeFileSync(join(models, "stories.gguf"), readFileSync(STORIES_GGUF));
  const p = Bun.spawn(["bun", join(import.meta.dir, "../../src/cli.ts"), "serve", "--port", "0", "--data", join(d.path, "data"), "--models", models], { stdout: "pipe", stderr: "pipe" });
  const reader = (p.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toStartWith("kbqa listening on http://");
  p.kill("SIGTERM");
  expect(await p.exited).toBe(0);
}, 60_000);
