// A large parse result travels as markdown and chunk parts of about PART_CHARS characters before its
// `done` (one huge IPC message cost the server several times its size in memory): put back together
// it must equal the result sent whole, code unit for code unit, including a surrogate pair that
// straddles a part boundary.
import { expect, test } from "bun:test";
import { WorkerPool } from "../../src/ingest/pool.ts";
import { PART_CHARS, type WorkerMessage } from "../../src/ingest/worker.ts";
import type { ParsedDocument } from "../../src/ingest/parsed.ts";

test("a large result sent in parts puts back together into the same markdown and chunks", async () => {
  // Lines of emoji (two code units each) with an odd-length prefix: the first boundary falls inside a pair.
  const line = `${"😀".repeat(40)} wörds 日本語 line\n\n`;
  const text = `x${line.repeat(Math.ceil((2.5 * PART_CHARS) / line.length))}`;
  const bytes = new TextEncoder().encode(text);
  const pool = new WorkerPool({ size: 1, timeoutMs: 120_000, memoryBytes: 2 ** 31 });
  try {
    const body = { type: "parse" as const, bytes, contentType: "text/markdown", chunk: null, enrich: { lang: "en", summary: true, tokens: true, embed: true } };
    const whole = (await pool.run(body)) as ParsedDocument & { inParts?: true };
    const code = whole.markdown.charCodeAt(PART_CHARS - 1);
    expect(code >= 0xd800 && code <= 0xdbff).toBe(true); // the case this test is about

    const markdown: string[] = [];
    const chunks: ParsedDocument["chunks"][] = [];
    const got = (await pool.run({ ...body, inParts: true }, {
      onMessage: (m: WorkerMessage) => {
        if (m.type === "markdown") markdown.push(m.part);
        else if (m.type === "chunks") chunks.push(m.chunks);
      },
    })) as ParsedDocument & { inParts?: true; enriched?: unknown };
    expect(got.inParts).toBe(true);
    expect(got.markdown).toBeUndefined();
    expect(markdown.length).toBeGreaterThanOrEqual(3);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const p of markdown) expect(p.length).toBeLessThanOrEqual(PART_CHARS);
    for (const p of markdown) expect(p.isWellFormed()).toBe(true);
    expect(markdown.join("") === whole.markdown).toBe(true);
    expect(chunks.flat()).toEqual(whole.chunks);
    const { markdown: _m, chunks: _c, ...wholeRest } = whole;
    const { inParts: _p, ...gotRest } = got;
    expect(gotRest as Record<string, unknown>).toEqual(wholeRest);
  } finally {
    await pool.close();
  }
}, 120_000);

test("a small result comes whole even when parts are allowed", async () => {
  const pool = new WorkerPool({ size: 1, timeoutMs: 60_000, memoryBytes: 2 ** 31 });
  try {
    const seen: string[] = [];
    const got = (await pool.run(
      { type: "parse", bytes: new TextEncoder().encode("# Valves\n\nThe inspector checks every valve.\n"), contentType: "text/markdown", chunk: null, inParts: true },
      { onMessage: (m) => void seen.push(m.type) },
    )) as ParsedDocument & { inParts?: true };
    expect(got.inParts).toBeUndefined();
    expect(got.markdown).toContain("every valve");
    expect(seen.filter((t) => t === "markdown" || t === "chunks")).toEqual([]);
  } finally {
    await pool.close();
  }
}, 60_000);
