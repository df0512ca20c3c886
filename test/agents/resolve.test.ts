import { describe, expect, test } from "bun:test";
import { openDb } from "../../src/store/db.ts";
import { agentService, CORE_IDS, PLATFORM_DEFAULTS } from "../../src/agents/service.ts";
import { AppError } from "../../src/http/errors.ts";
import type { ModelRegistry } from "../../src/models/registry.ts";
import { tempDir } from "../helpers/server.ts";

const models = { has: (id: string, role: string) => (id === "chat-1" && role === "chat") || (id === "rr-1" && role === "rerank") } as unknown as ModelRegistry;

describe("agentService.resolve (what the answering pipeline runs on)", () => {
  test("no id → the platform default agent with every default applied", () => {
    using dir = tempDir();
    const db = openDb(dir.path);
    const agents = agentService(db, { now: () => 1_000 }, models);
    const r = agents.resolve("org-1");
    expect(r).toEqual({
      id: CORE_IDS.default,
      name: "Platform Default",
      topK: PLATFORM_DEFAULTS.topK,
      rerank: false,
      rerankTopK: PLATFORM_DEFAULTS.rerankTopK,
      rerankModel: undefined,
      useHistory: true,
      historySize: PLATFORM_DEFAULTS.historySize,
      thinkingMode: "LOW",
      temperature: PLATFORM_DEFAULTS.temperature,
      baseModel: undefined,
      systemInstruction: agents.get("org-1", CORE_IDS.default).systemInstruction,
    });
    db.close();
  });

  test("custom overrides win, rerankTopK is capped at topK, invisible ids are NOT_FOUND", () => {
    using dir = tempDir();
    const db = openDb(dir.path);
    const agents = agentService(db, { now: () => 1_000 }, models);
    const a = agents.create("org-1", { name: "X", topK: 3, rerank: true, rerankTopK: 10, rerankModel: "rr-1", historySize: 0, temperature: 1, baseModel: "chat-1", thinkingMode: "HIGH", useHistory: false });
    expect(agents.resolve("org-1", a.id)).toMatchObject({ id: a.id, topK: 3, rerankTopK: 3, rerankModel: "rr-1", historySize: 0, temperature: 1, baseModel: "chat-1", thinkingMode: "HIGH", useHistory: false });
    for (const [org, id] of [["org-2", a.id], ["org-1", crypto.randomUUID()]] as const) {
      expect(() => agents.resolve(org, id)).toThrow(AppError);
      try {
        agents.resolve(org, id);
      } catch (e) {
        expect((e as AppError).code).toBe("NOT_FOUND");
      }
    }
    agents.remove("org-1", a.id);
    expect(() => agents.resolve("org-1", a.id)).toThrow("Agent not found");
    expect(agents.resolve("org-2", CORE_IDS.rnd).name).toBe("Platform R&D");
    db.close();
  });
});
