import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelRegistry } from "../../src/models/registry.ts";
import { UnknownModelError } from "../../src/models/errors.ts";

const dirs: string[] = [];
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

describe("registry with an empty models folder", () => {
  test("lists exactly the built-in models, defaults flagged", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kbqa-models-")); dirs.push(dir);
    const reg = await createModelRegistry({ modelsDir: dir, threads: 1, maxSequences: 2, queueTimeoutMs: 1000 });
    expect(reg.list().map(({ id, role, tier, default: d }) => ({ id, role, tier, default: d }))).toEqual([
      { id: "builtin-hash-embed", role: "embedding", tier: "builtin", default: true },
      { id: "builtin-extractive", role: "chat", tier: "builtin", default: true },
      { id: "builtin-lexical-rerank", role: "rerank", tier: "builtin", default: false },
    ]);
    expect(reg.embedder().id).toBe("builtin-hash-embed");
    expect(reg.embedder().dims).toBe(384);
    expect(reg.answerer().id).toBe("builtin-extractive");
    expect(reg.answerer("builtin-extractive")).toBe(reg.answerer());
    expect(reg.summariser().id).toBe("builtin-extractive-summary");
    expect(reg.reranker()).toBeUndefined();
    expect(reg.reranker("builtin-lexical-rerank")!.id).toBe("builtin-lexical-rerank");
    expect(reg.tokens().id).toBe("builtin-approx");
    expect(reg.has("builtin-extractive", "chat")).toBe(true);
    expect(reg.has("builtin-extractive", "rerank")).toBe(false);
    expect(() => reg.answerer("gpt-17")).toThrow(UnknownModelError);
    expect(() => reg.reranker("nope")).toThrow(UnknownModelError);
    await reg.close();
  });

  test("a missing models folder behaves like an empty one", async () => {
    const reg = await createModelRegistry({ modelsDir: "/nonexistent/kbqa-models", threads: 1, maxSequences: 2, queueTimeoutMs: 1000 });
    expect(reg.list().length).toBe(3);
    const r = await reg.answerer().answer({ question: "What colour is the sky?", lang: "en", system: "", history: [], passages: [{ ref: 1, text: "On a clear day the sky is blue because of Rayleigh scattering." }] });
    expect(r).toMatchObject({ answered: true, cited: [1] });
  });
});
