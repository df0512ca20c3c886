import { describe, expect, test } from "bun:test";
import type { Element, ElementType } from "../../src/ingest/elements.ts";
import { markdownToElements } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig, type ChunkConfig } from "../../src/ingest/chunker/index.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";

function randomElements(rand: () => number): Element[] {
  const types: ElementType[] = ["Title", "NarrativeText", "ListItem", "Table", "CodeSnippet", "Text", "PageBreak"];
  const word = () => "abcdefghij".slice(0, 1 + Math.floor(rand() * 10)).repeat(rand() < 0.05 ? 8 : 1);
  const out: Element[] = [];
  let page = 1;
  const n = Math.floor(rand() * 40);
  for (let i = 0; i < n; i++) {
    const type = types[Math.floor(rand() * types.length)]!;
    if (rand() < 0.2) page += 1 + Math.floor(rand() * 2);
    let text = "";
    if (type !== "PageBreak") {
      const words = Array.from({ length: Math.floor(rand() * 30) }, word);
      const sep = type === "Table" || type === "CodeSnippet" ? () => (rand() < 0.3 ? "\n" : " ") : () => (rand() < 0.1 ? "  \n" : " ");
      text = words.map((w, k) => (k ? sep() : "") + w).join("");
    }
    const e: Element = { type, text };
    if (rand() < 0.8) e.page = page;
    out.push(e);
  }
  return out;
}

function randomConfig(rand: () => number): ChunkConfig {
  const max = 5 + Math.floor(rand() * 200);
  const raw: Record<string, unknown> = {
    strategy: rand() < 0.5 ? "basic" : "by_title",
    max_characters: max,
    new_after_n_chars: Math.floor(rand() * (max + 1)),
    overlap: rand() < 0.5 ? 0 : Math.floor(rand() * max),
    overlap_all: rand() < 0.5,
  };
  if (raw.strategy === "by_title") {
    raw.combine_text_under_n_chars = Math.floor(rand() * (max + 1));
    raw.multipage_sections = rand() < 0.5;
  }
  return parseChunkConfig(raw);
}

const squash = (s: string) => s.replace(/\s+/g, "");

describe("random elements and configs", () => {
  test("chunks are bounded, non-empty, paged ascending; without overlap they cover all text in order", () => {
    const rand = rng(42);
    let checkedCoverage = 0;
    for (let iter = 0; iter < 1500; iter++) {
      const elements = randomElements(rand);
      const cfg = randomConfig(rand);
      const chunks = chunkElements(elements, cfg);
      const allPages = new Set(elements.flatMap((e) => (e.page === undefined ? [] : [e.page])));
      for (const c of chunks) {
        expect(c.text.length).toBeLessThanOrEqual(cfg.max_characters);
        expect(c.text.trim().length).toBeGreaterThan(0);
        for (let k = 1; k < c.pages.length; k++) expect(c.pages[k]).toBe(c.pages[k - 1]! + 1);
        for (const p of c.pages) expect(p).toBeGreaterThanOrEqual(Math.min(...allPages));
      }
      for (let k = 1; k < chunks.length; k++) {
        const a = chunks[k - 1]!.pages;
        const b = chunks[k]!.pages;
        if (a.length && b.length) expect(b[0]!).toBeGreaterThanOrEqual(a[0]!);
      }
      if (cfg.overlap === 0) {
        checkedCoverage++;
        expect(squash(chunks.map((c) => c.text).join(""))).toBe(squash(elements.map((e) => e.text).join("")));
      }
    }
    expect(checkedCoverage).toBeGreaterThan(500);
  });
});

describe("end to end from markdown", () => {
  test("paged markdown with the platform default", () => {
    const md = "<!-- page 1 -->\n# Intro\nHello\nworld.\n<!-- page 2 -->\n- one\n- two\n\n| a |\n|---|\n| 1 |\n<!-- page 3 -->\n# Next\nBody.";
    expect(chunkElements(markdownToElements(md), parseChunkConfig(undefined))).toEqual([
      { text: "Intro\n\nHello world.\n\none\n\ntwo", pages: [1, 2] },
      { text: "| a |\n|---|\n| 1 |", pages: [2] },
      { text: "Next\n\nBody.", pages: [3] },
    ]);
  });
});

describe("performance", () => {
  function tenMegabytes(): { md: string; pages: number } {
    const parts: string[] = [];
    let size = 0;
    let p = 1;
    for (; size < 10_000_000; p++) {
      const block =
        `<!-- page ${p} -->\n## Section ${p}\n\n` +
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n".repeat(20) +
        "\n- first item of the list\n- second item\n  continued here\n\n| col a | col b |\n|---|---|\n| 1 | 2 |\n\n```\ncode line\n```\n\n";
      parts.push(block);
      size += block.length;
    }
    return { md: parts.join(""), pages: p - 1 };
  }

  test("10 MB of structured markdown: elements and chunks within 5 s (2-core box shared with other work)", () => {
    const { md, pages } = tenMegabytes();
    const t0 = performance.now();
    const els = markdownToElements(md);
    const chunks = chunkElements(els, parseChunkConfig(undefined));
    const ms = performance.now() - t0;
    // Title, paragraph, two list items, table, code per page.
    expect(els.length).toBe(6 * pages);
    expect(els.at(-1)!.page).toBe(pages);
    expect(chunks.length).toBeGreaterThan(pages);
    expect(ms).toBeLessThan(5000);
  });

  test("10 MB single line: one element, split linearly within 5 s (2-core box shared with other work)", () => {
    const md = "word ".repeat(2_000_000);
    const t0 = performance.now();
    const els = markdownToElements(md);
    const chunks = chunkElements(els, parseChunkConfig({ overlap: 200 }));
    const ms = performance.now() - t0;
    expect(els.length).toBe(1);
    expect(chunks.length).toBeGreaterThan(1000);
    expect(chunks.every((c) => c.text.length <= 10000)).toBe(true);
    expect(ms).toBeLessThan(5000);
  });

  test("deeply nested list and quote markers do not recurse", () => {
    const md = Array.from({ length: 100_000 }, (_, i) => `${" ".repeat(i % 50)}- item ${i}`).join("\n") + "\n\n" + ">".repeat(100_000) + " deep";
    const els = markdownToElements(md);
    expect(els.length).toBe(100_001);
  });
});
