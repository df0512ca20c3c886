import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { CORE_AGENTS, CORE_IDS } from "../../src/agents/core.ts";
import { PLATFORM_DEFAULTS } from "../../src/agents/defaults.ts";
import { systemInstruction } from "../../src/agents/instruction.ts";

let k: Kbqa;
let a: Org;
let b: Org;
beforeAll(async () => {
  k = await startKbqa();
  [a, b] = await Promise.all([k.org("A"), k.org("B")]);
});
afterAll(() => k.stop());

const CORE_NAMES = ["Platform Default", "Platform Helpdesk", "Platform Legal", "Platform Marketing", "Platform Daily", "Platform R&D"];

describe("core agents", () => {
  test("six, visible to every organization, locked, no orgId, one default, identical retrieval settings", async () => {
    for (const o of [a, b]) {
      const r = await o.api("GET", "/v1/agent/");
      expect(r.status).toBe(200);
      const core = r.body.slice(0, 6);
      expect(core.map((x: { name: string }) => x.name)).toEqual(CORE_NAMES);
      expect(core.map((x: { id: string }) => x.id)).toEqual(Object.values(CORE_IDS));
      for (const x of core) {
        expect(x).toMatchObject({ lock: true, topK: PLATFORM_DEFAULTS.topK, rerank: false, useHistory: true, thinkingMode: "LOW" });
        expect(x.orgId).toBeUndefined();
        for (const f of ["rerankTopK", "rerankModel", "historySize", "temperature", "baseModel"]) expect(x[f]).toBeUndefined();
        expect(x.systemInstruction).toBe([x.context, x.behaviour, x.spirit].join("\n\n"));
        expect(x.behaviour).toContain("[1]");
      }
      expect(core.filter((x: { default: boolean }) => x.default).map((x: { name: string }) => x.name)).toEqual(["Platform Default"]);
      // every core agent has its own instruction
      expect(new Set(core.map((x: { systemInstruction: string }) => x.systemInstruction)).size).toBe(6);
    }
    const one = await a.api("GET", `/v1/agent/${CORE_IDS.legal}`);
    expect(one.body.name).toBe("Platform Legal");
    expect(one.body.behaviour).toMatch(/clause/);
  });

  test("PATCH or DELETE on a core agent answers 400 and changes nothing", async () => {
    for (const c of CORE_AGENTS) {
      const p = await a.api("PATCH", `/v1/agent/${c.id}`, { topK: 3 });
      expect(p.status).toBe(400);
      expect((await a.api("PATCH", `/v1/agent/${c.id}`, { reset: ["context"] })).status).toBe(400);
      expect((await a.api("DELETE", `/v1/agent/${c.id}`)).status).toBe(400);
      const g = await a.api("GET", `/v1/agent/${c.id}`);
      expect(g.body.topK).toBe(PLATFORM_DEFAULTS.topK);
      expect(g.body.context).toBe(c.context);
    }
  });
});

describe("custom agents", () => {
  test("create with only a name follows the defaults; read-only fields sent are ignored", async () => {
    const r = await a.api("POST", "/v1/agent/", {
      name: "Bare",
      id: crypto.randomUUID(),
      lock: true,
      default: true,
      orgId: b.orgId,
      systemInstruction: "ignored",
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Bare",
      lock: false,
      orgId: a.orgId,
      default: false,
      topK: PLATFORM_DEFAULTS.topK,
      rerank: false,
      useHistory: true,
      thinkingMode: "LOW",
      systemInstruction: systemInstruction({}),
      createdAt: r.body.createdAt,
      updatedAt: r.body.createdAt,
    });
    expect(r.body.systemInstruction).toBe((await a.api("GET", `/v1/agent/${CORE_IDS.default}`)).body.systemInstruction);
  });

  test("create every field, get, list order (core first, then own oldest first), delete", async () => {
    const o = await k.org("lister");
    const full = {
      name: "Full",
      description: "d",
      topK: 20,
      rerank: true,
      rerankTopK: 5,
      rerankModel: "builtin-lexical-rerank",
      context: "C",
      behaviour: "B",
      spirit: "S",
      useHistory: false,
      historySize: 0,
      thinkingMode: "HIGH",
      temperature: 0,
      baseModel: "builtin-extractive",
    };
    const c = await o.api("POST", "/v1/agent/", full);
    expect(c.status).toBe(200);
    const { name: _n, ...rest } = full;
    expect(c.body).toEqual({
      ...full,
      ...rest,
      id: c.body.id,
      lock: false,
      orgId: o.orgId,
      default: false,
      systemInstruction: "C\n\nB\n\nS",
      createdAt: c.body.createdAt,
      updatedAt: c.body.updatedAt,
    });
    expect((await o.api("GET", `/v1/agent/${c.body.id}`)).body).toEqual(c.body);
    const second = (await o.api("POST", "/v1/agent/", { name: "Second" })).body.id;
    const list = (await o.api("GET", "/v1/agent/")).body.map((x: { name: string }) => x.name);
    expect(list).toEqual([...CORE_NAMES, "Full", "Second"]);

    const d = await o.api("DELETE", `/v1/agent/${c.body.id}`);
    expect(d.status).toBe(200);
    expect(Object.keys(d.body).sort()).toEqual(["message", "timestamp"]);
    for (const [m, body] of [["GET", undefined], ["PATCH", { topK: 2 }], ["DELETE", undefined]] as const) {
      expect((await o.api(m, `/v1/agent/${c.body.id}`, body)).status).toBe(404);
    }
    expect((await o.api("GET", "/v1/agent/")).body.map((x: { id: string }) => x.id)).not.toContain(c.body.id);
    expect((await o.api("GET", `/v1/agent/${second}`)).status).toBe(200);
  });

  test("another organization's agent answers 404 and does not list", async () => {
    const mine = (await a.api("POST", "/v1/agent/", { name: "Private" })).body.id;
    for (const [m, body] of [["GET", undefined], ["PATCH", { topK: 2 }], ["DELETE", undefined]] as const) {
      expect((await b.api(m, `/v1/agent/${mine}`, body)).status).toBe(404);
    }
    expect((await b.api("GET", "/v1/agent/")).body.map((x: { id: string }) => x.id)).not.toContain(mine);
    expect((await a.api("GET", `/v1/agent/${mine}`)).body.topK).toBe(PLATFORM_DEFAULTS.topK);
    expect((await a.api("GET", `/v1/agent/${crypto.randomUUID()}`)).status).toBe(404);
  });

  test("validation answers 400 naming the field, nothing written", async () => {
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: 5 }, "name"],
      [{ name: "v", topK: 0 }, "topK"],
      [{ name: "v", topK: 101 }, "topK"],
      [{ name: "v", topK: 2.5 }, "topK"],
      [{ name: "v", rerankTopK: 0 }, "rerankTopK"],
      [{ name: "v", rerankTopK: 101 }, "rerankTopK"],
      [{ name: "v", historySize: -1 }, "historySize"],
      [{ name: "v", historySize: 101 }, "historySize"],
      [{ name: "v", temperature: -0.1 }, "temperature"],
      [{ name: "v", temperature: 1.01 }, "temperature"],
      [{ name: "v", thinkingMode: "MEDIUM" }, "thinkingMode"],
      [{ name: "v", rerank: "maybe" }, "rerank"],
      [{ name: "v", baseModel: "no-such-model" }, "baseModel"],
      [{ name: "v", baseModel: "builtin-lexical-rerank" }, "baseModel"],
      [{ name: "v", rerankModel: "no-such-model" }, "rerankModel"],
    ];
    for (const [body, field] of cases) {
      const r = await a.api("POST", "/v1/agent/", body);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect(r.body.message).toContain(field);
    }
    const id = (await a.api("POST", "/v1/agent/", { name: "Valid" })).body.id;
    for (const [body, field] of cases.slice(4)) {
      const { name: _n, ...patch } = body as Record<string, unknown>;
      const r = await a.api("PATCH", `/v1/agent/${id}`, patch);
      expect({ patch, status: r.status }).toEqual({ patch, status: 400 });
      expect(r.body.message).toContain(field);
    }
    expect((await a.api("PATCH", `/v1/agent/${id}`, { name: "" })).status).toBe(400);
    const names = (await a.api("GET", "/v1/agent/")).body.map((x: { name: string }) => x.name);
    expect(names.filter((n: string) => n === "v")).toEqual([]);
    expect((await a.api("GET", `/v1/agent/${id}`)).body.topK).toBe(PLATFORM_DEFAULTS.topK);
  });
});

describe("PATCH and reset", () => {
  test("omitted fields stay; reset un-sets after the body; systemInstruction follows the parts", async () => {
    const c = (await a.api("POST", "/v1/agent/", { name: "Resettable", description: "d", context: "Ctx", temperature: 0.7, historySize: 2, topK: 5 })).body;
    expect(c.systemInstruction).toBe(systemInstruction({ context: "Ctx" }));
    const p = await a.api("PATCH", `/v1/agent/${c.id}`, { behaviour: "Beh", spirit: "Spi" });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ description: "d", context: "Ctx", behaviour: "Beh", spirit: "Spi", temperature: 0.7, historySize: 2, topK: 5 });
    expect(p.body.systemInstruction).toBe("Ctx\n\nBeh\n\nSpi");
    expect(Date.parse(p.body.updatedAt)).toBeGreaterThan(Date.parse(c.updatedAt));

    // a field both in the body and in reset ends up cleared
    const r = await a.api("PATCH", `/v1/agent/${c.id}`, { context: "New", temperature: 0.1, topK: 9, reset: ["context", "temperature", "description"] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: c.id,
      name: "Resettable",
      lock: false,
      orgId: a.orgId,
      default: false,
      topK: 9,
      rerank: false,
      behaviour: "Beh",
      spirit: "Spi",
      useHistory: true,
      historySize: 2,
      thinkingMode: "LOW",
      systemInstruction: [PLATFORM_DEFAULTS.context, "Beh", "Spi"].join("\n\n"),
      createdAt: c.createdAt,
      updatedAt: r.body.updatedAt,
    });
    const all = await a.api("PATCH", `/v1/agent/${c.id}`, {
      reset: ["description", "rerankTopK", "context", "behaviour", "spirit", "historySize", "temperature", "rerankModel", "baseModel"],
    });
    expect(all.body.systemInstruction).toBe(systemInstruction({}));
    for (const f of ["description", "rerankTopK", "context", "behaviour", "spirit", "historySize", "temperature", "rerankModel", "baseModel"]) {
      expect(all.body[f]).toBeUndefined();
    }
    expect(all.body.topK).toBe(9);
  });

  test("reset naming a non-resettable field answers 400 naming it, nothing written", async () => {
    const c = (await a.api("POST", "/v1/agent/", { name: "Strict", context: "keep" })).body;
    for (const bad of ["topK", "name", "rerank", "useHistory", "thinkingMode", "systemInstruction", "nope", "Context"]) {
      const r = await a.api("PATCH", `/v1/agent/${c.id}`, { context: "changed", reset: ["description", bad] });
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
      expect(r.body.message).toContain(bad);
    }
    expect((await a.api("PATCH", `/v1/agent/${c.id}`, { reset: "context" })).status).toBe(400);
    const g = (await a.api("GET", `/v1/agent/${c.id}`)).body;
    expect(g).toEqual(c);
  });

  test("null on a nullable field un-sets it like reset", async () => {
    const c = (await a.api("POST", "/v1/agent/", { name: "Nulls", spirit: "S", temperature: 0.5 })).body;
    const r = await a.api("PATCH", `/v1/agent/${c.id}`, { spirit: null, temperature: null });
    expect(r.body.spirit).toBeUndefined();
    expect(r.body.temperature).toBeUndefined();
    expect(r.body.systemInstruction).toBe(systemInstruction({}));
  });
});
