// Passages that do not all fit in a GGUF model's context (stories260K: 2,048 tokens) used to go in
// whole: the reply was squeezed to one token, after seconds of context shifting. The answerer now
// shows the best passages that fit, cuts the next one to the room left, and leaves the reply its
// room; an answer without markers stands only on the passages shown.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createModelRegistry, type ModelRegistry } from "../../src/models/registry.ts";
import { fitPassages } from "../../src/models/prompt.ts";
import { tempModelsDir, withStories } from "./helpers/temp-models.ts";
import type { AnswerRequest, Passage } from "../../src/models/types.ts";

let tmp: Awaited<ReturnType<typeof tempModelsDir>>;
let reg: ModelRegistry;
beforeAll(async () => {
  tmp = await tempModelsDir();
  await withStories(tmp.dir);
  reg = await createModelRegistry({ modelsDir: tmp.dir, threads: 1, maxSequences: 1, queueTimeoutMs: 60_000 });
});
afterAll(async () => {
  await reg.close();
  await tmp.cleanup();
});

const passages: Passage[] = Array.from({ length: 8 }, (_, i) => ({ ref: i + 1, text: `Passage ${i + 1}. ` + "Lily went to the park and saw a big red ball. ".repeat(40) }));
const req: AnswerRequest = { question: "What did Lily see?", lang: "en", system: "Once upon a time", history: [], passages, temperature: 0, maxTokens: 48 };

test("eight passages of ~2,000 characters: the best that fit are shown, and the reply keeps its room", async () => {
  const r = await reg.answerer("stories260K").answer(req);
  expect(r.shown).toBeGreaterThan(0);
  expect(r.shown).toBeLessThan(passages.length);
  expect(r.promptTokens).toBeLessThanOrEqual(2048 - 48);
  expect(r.completionTokens).toBeGreaterThan(1);
  expect(r.cited.every((ref) => ref <= r.shown!)).toBe(true);
});

test("fitPassages keeps whole passages in order, then cuts the next one to the room left", async () => {
  const count = async (t: string) => t.length; // one token per character keeps the arithmetic visible
  const cut = async (t: string, n: number) => t.slice(0, n);
  const small: Passage[] = [{ ref: 1, text: "a".repeat(100) }, { ref: 2, text: "b".repeat(100) }, { ref: 3, text: "c".repeat(500) }, { ref: 4, text: "d" }];
  const frame = (await count(`Passages:\n\n\n\nQuestion: q`));
  const kept = await fitPassages({ ...req, question: "q", passages: small }, frame + 2 * 106 + 200, count, cut);
  expect(kept.map((p) => [p.ref, p.text.length])).toEqual([[1, 100], [2, 100], [3, 200 - 6]]);
  // Too little room for a useful part of the next one: left out instead.
  const tight = await fitPassages({ ...req, question: "q", passages: small }, frame + 2 * 106 + 20, count, cut);
  expect(tight.map((p) => p.ref)).toEqual([1, 2]);
});
