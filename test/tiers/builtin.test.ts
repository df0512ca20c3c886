// Built-in tier: an empty models folder, the README's start command (`bun src/cli.ts serve`).
// The extractive answerer is deterministic, so the answer must quote the fact with a marker.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa } from "../helpers/server.ts";
import { expectScenario } from "./expect-scenario.ts";
import { FACT, runScenario, type ScenarioResult } from "./scenario.ts";

let k: Kbqa;
let r: ScenarioResult;

beforeAll(async () => {
  k = await startKbqa(); // models folder: a fresh empty directory
  r = await runScenario(k);
});
afterAll(() => k?.stop());

describe("built-in tier (empty models folder)", () => {
  test("the models folder is empty and only the built-in models are listed", () => {
    expect(r.models.map(({ id, role, tier, default: d }) => ({ id, role, tier, default: d }))).toEqual([
      { id: "builtin-hash-embed", role: "embedding", tier: "builtin", default: true },
      { id: "builtin-extractive", role: "chat", tier: "builtin", default: true },
      { id: "builtin-lexical-rerank", role: "rerank", tier: "builtin", default: false },
    ]);
  });

  test("ingest and query succeed through the built-in embedder and answerer", () => {
    expectScenario(r, { embedding: "builtin-hash-embed", chat: "builtin-extractive", tier: "builtin" });
  });

  test("the answer quotes the document's sentence with a citation marker, and cites page 2 of the PDF", () => {
    expect(r.answer.body).toContain(FACT.replace(/\.$/, ""));
    // Once: the summary chunk's bullet "- <fact>" is the same sentence, not a second quote.
    expect(r.answer.body.split(FACT).length - 1).toBe(1);
    expect(r.answer.body).not.toMatch(/(^|\s)- /);
    expect(r.answer.body).toMatch(/\[\d+\]/);
    expect(r.attachments).toEqual([{ docId: r.pdfId, summary: expect.any(String), pages: [2], metadata: expect.any(Object) }]);
  });
});
