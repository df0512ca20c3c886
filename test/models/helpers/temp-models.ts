// Temp models folders for tests; the shared tiny GGUF is copied in, never into the repo.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** ../shared sits beside the repository (on developer machines and in CI). */
export const STORIES_GGUF = resolve(import.meta.dir, "../../../../shared/models/stories260K.gguf");

export async function tempModelsDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "kbqa-models-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function withStories(dir: string, name = "stories260K.gguf"): Promise<string> {
  const p = join(dir, name);
  await copyFile(STORIES_GGUF, p);
  return p;
}

/** Poll a condition with a deadline instead of sleeping. */
export async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
