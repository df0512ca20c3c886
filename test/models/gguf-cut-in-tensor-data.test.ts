// A GGUF copy cut short after its header, in the tensor data: the header reads whole, so the
// header check passed and `kbqa serve` said only llama.cpp's "Failed to load model". The README
// promises the reason ("cut short"); a copy or download stopped midway usually stops here, since the
// header is a few KB of a file of gigabytes. Two cuts: before the last tensors begin, and inside
// the very last tensor (found only by the tensors' sizes, not their offsets).
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/server.ts";
import { STORIES_GGUF } from "./helpers/temp-models.ts";

async function serveWithPrefix(bytes: number) {
  using d = tempDir();
  const models = join(d.path, "models");
  mkdirSync(models);
  writeFileSync(join(models, "stories.gguf"), readFileSync(STORIES_GGUF).subarray(0, bytes));
  return await runCli(["serve", "--port", "0", "--data", join(d.path, "data"), "--models", models]);
}

const lastLine = (s: string) => s.trimEnd().split("\n").at(-1);

test.skipIf(!existsSync(STORIES_GGUF))("cut in the middle of its tensor data", async () => {
  const r = await serveWithPrefix(100_000);
  expect(r.code).toBe(1);
  expect(lastLine(r.stderr)).toBe(
    "kbqa serve: --models: the default chat model stories.gguf cannot be loaded: its tensor data is incomplete (100000 bytes, at least 1185376 expected): the file looks cut short (a partial copy or download?); replace or remove it",
  );
}, 60_000);

test.skipIf(!existsSync(STORIES_GGUF))("cut inside its last tensor", async () => {
  const size = readFileSync(STORIES_GGUF).length;
  const r = await serveWithPrefix(size - 100);
  expect(r.code).toBe(1);
  expect(lastLine(r.stderr)).toBe(
    `kbqa serve: --models: the default chat model stories.gguf cannot be loaded: its tensor data is incomplete (${size - 100} bytes, at least ${size} expected): the file looks cut short (a partial copy or download?); replace or remove it`,
  );
}, 60_000);
