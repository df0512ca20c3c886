// The local tier's models folder: a tiny ONNX embedding model written here (its vocabulary is the
// scenario's words) and a copy of the shared TinyStories GGUF. Copied at test time into a temp
// folder; model files are never committed.
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ROOT } from "../helpers/server.ts";
import { writeTinyOnnx } from "../models/helpers/tiny-onnx.ts";
import { WORDS } from "./scenario.ts";

/** Beside the repository (../shared), here and in CI. */
export const STORIES = resolve(ROOT, "../shared/models/stories260K.gguf");
export const STORIES_MISSING = !existsSync(STORIES);
export const EMBED_ID = "tiny-embed";
export const CHAT_ID = "stories260K";
export const DIMS = 8;

export async function localModelsDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "kbqa-tiers-models-"));
  await writeTinyOnnx(dir, EMBED_ID, WORDS, DIMS, { pooling: "mean" });
  await copyFile(STORIES, join(dir, `${CHAT_ID}.gguf`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
