// Assertions every tier shares on a ScenarioResult; the tier tests add their own on top.
import { expect } from "bun:test";
import type { ScenarioResult } from "./scenario.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function expectScenario(r: ScenarioResult, want: { embedding: string; chat: string; tier: string }) {
  // The model list names the tier's defaults, exactly one per role for embedding and chat.
  expect(r.defaults).toEqual({ embedding: want.embedding, chat: want.chat });
  for (const role of ["embedding", "chat"]) expect(r.models.filter((m) => m.role === role && m.default).length).toBe(1);
  expect(r.models.find((m) => m.id === want.chat && m.role === "chat")!.tier).toBe(want.tier);
  expect(r.models.find((m) => m.id === want.embedding && m.role === "embedding")!.tier).toBe(want.tier);
  // The built-in tier is always there to fall back on.
  expect(r.models.filter((m) => m.tier === "builtin").map((m) => m.id).sort()).toEqual(["builtin-extractive", "builtin-hash-embed", "builtin-lexical-rerank"]);

  expect(r.pdfPages).toBe(3);
  expect(r.answer.agentId).toMatch(UUID);
  expect(r.query.agentId).toBe(r.answer.agentId);
  expect(r.answer.body.trim().length).toBeGreaterThan(0);
  expect(r.stored).toEqual(r.answer);

  // The question is about the PDF: the answer stands on at least one chunk, and the attachment
  // listing groups chunks per document (each document once, pages ascending within the PDF).
  expect(r.answer.attachment).toBeGreaterThanOrEqual(1);
  expect(r.attachments.length).toBeGreaterThanOrEqual(1);
  expect(r.attachments.length).toBeLessThanOrEqual(r.answer.attachment);
  const ids = r.attachments.map((a) => a.docId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const a of r.attachments) {
    expect([r.pdfId, r.mdId]).toContain(a.docId);
    expect(a.pages).toEqual([...a.pages].sort((x, y) => x - y));
    if (a.docId === r.pdfId) {
      expect(a.pages.length).toBeGreaterThanOrEqual(1);
      for (const p of a.pages) expect([1, 2, 3]).toContain(p);
    }
  }
  expect(ids).toContain(r.pdfId);
}
