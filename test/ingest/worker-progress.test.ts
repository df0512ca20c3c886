// A worker batches the ends of small requests into one IPC message per event-loop turn, but the
// progress and the vector parts of a large document must still reach the server while the
// worker is busy embedding (they are sent from inside one long synchronous loop).
import { expect, test } from "bun:test";
import { WorkerPool } from "../../src/ingest/pool.ts";
import { VECTORS_PER_MESSAGE } from "../../src/ingest/enrich.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

test("vector parts and progress of a large document arrive over several turns, before its result", async () => {
  const pool = new WorkerPool({ size: 1, timeoutMs: 120_000, memoryBytes: 2 ** 31 });
  // The server's event-loop turns, counted while the document is processed.
  let turn = 0;
  let counting = true;
  const tick = () => {
    turn++;
    if (counting) setImmediate(tick);
  };
  tick();
  try {
    // Four vector parts: one paragraph per chunk, each long enough to take some embedding time.
    const paragraphs = Array.from({ length: VECTORS_PER_MESSAGE * 4 }, (_, i) =>
      `Paragraph ${i} about ${["lanterns", "rivers", "ledgers", "orchards"][i % 4]} ${"and the many words that follow it ".repeat(12)}`);
    const bytes = utf8(paragraphs.join("\n\n"));
    const seen: { type: string; turn: number }[] = [];
    const result = (await pool.run(
      { type: "parse", bytes, contentType: "text/markdown", chunk: { strategy: "basic", max_characters: 600 },
        enrich: { lang: "en", summary: true, tokens: true, embed: true }, progress: true },
      { onMessage: (m) => void seen.push({ type: m.type === "stage" ? `stage:${m.stage}` : m.type, turn }) },
    )) as { chunks: unknown[]; enriched: { count: number } };
    const doneTurn = turn;
    expect(result.chunks.length).toBe(VECTORS_PER_MESSAGE * 4);
    const parts = seen.filter((s) => s.type === "vectors");
    expect(parts.length).toBeGreaterThanOrEqual(3);
    // Batched until the end, every part would arrive in the result's own turn.
    expect(new Set(parts.map((p) => p.turn)).size).toBeGreaterThan(1);
    expect(parts[0]!.turn).toBeLessThan(doneTurn);
    expect(seen.map((s) => s.type)).toContain("stage:embedding");
  } finally {
    counting = false;
    await pool.close();
  }
}, 120_000);
