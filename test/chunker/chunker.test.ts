import { describe, expect, test } from "bun:test";
import type { Element, ElementType } from "../../src/ingest/elements.ts";
import { chunkElements, parseChunkConfig, type ChunkOut } from "../../src/ingest/chunker/index.ts";

const el = (type: ElementType) => (text: string, page?: number): Element => (page === undefined ? { type, text } : { type, text, page });
const T = el("Title");
const N = el("NarrativeText");
const Tab = el("Table");
const Code = el("CodeSnippet");

/** Chunks with no page information. */
const texts = (...ts: string[]): ChunkOut[] => ts.map((text) => ({ text, pages: [] }));

interface Case {
  name: string;
  chunk: Record<string, unknown>;
  elements: Element[];
  want: ChunkOut[];
}

function run(cases: Case[]) {
  for (const c of cases) {
    test(c.name, () => expect(chunkElements(c.elements, parseChunkConfig(c.chunk))).toEqual(c.want));
  }
}

const sections = [T("Alpha"), N("one two"), T("Beta"), N("three")];
const abc = [N("aaaa"), N("bbbb"), N("cccc")];

describe("strategy", () => run([
  { name: "by_title breaks at each Title", chunk: { strategy: "by_title", max_characters: 100, combine_text_under_n_chars: 0 }, elements: sections, want: texts("Alpha\n\none two", "Beta\n\nthree") },
  { name: "basic ignores Titles and fills", chunk: { strategy: "basic", max_characters: 100 }, elements: sections, want: texts("Alpha\n\none two\n\nBeta\n\nthree") },
  { name: "default strategy is by_title", chunk: { max_characters: 100, combine_text_under_n_chars: 0 }, elements: sections, want: texts("Alpha\n\none two", "Beta\n\nthree") },
  { name: "whitespace inside an element folds to one space; code keeps it", chunk: { strategy: "basic" }, elements: [N("  a\n b\t\tc "), Code("x\n  y")], want: texts("a b c\n\nx\n  y") },
]));

for (const strategy of ["basic", "by_title"] as const) {
  describe(`max_characters (${strategy})`, () => run([
    { name: "fills up to the hard max counting separators", chunk: { strategy, max_characters: 10, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa\n\nbbbb", "cccc") },
    { name: "one over the max does not fit", chunk: { strategy, max_characters: 9, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa", "bbbb", "cccc") },
    { name: "oversized element split at a space", chunk: { strategy, max_characters: 10 }, elements: [N("hello world foo")], want: texts("hello", "world foo") },
    { name: "newline preferred over space", chunk: { strategy, max_characters: 12 }, elements: [Code("ab cd\nef gh ij")], want: texts("ab cd", "ef gh ij") },
    { name: "no separator: hard cut", chunk: { strategy, max_characters: 5 }, elements: [N("abcdefghijklmnop")], want: texts("abcde", "fghij", "klmno", "p") },
    { name: "oversized element isolated from neighbours", chunk: { strategy, max_characters: 10, combine_text_under_n_chars: 0 }, elements: [N("aa"), N("hello world foo"), N("bb")], want: texts("aa", "hello", "world foo", "bb") },
    { name: "oversized table split on rows", chunk: { strategy, max_characters: 12 }, elements: [Tab("| a | b |\n|---|---|\n| 1 | 2 |")], want: texts("| a | b |", "|---|---|", "| 1 | 2 |") },
    { name: "table is alone even when small", chunk: { strategy, max_characters: 100 }, elements: [N("x"), Tab("| a |\n|---|"), N("y")], want: texts("x", "| a |\n|---|", "y") },
  ]));

  describe(`new_after_n_chars (${strategy})`, () => run([
    { name: "a chunk exactly at the soft max is still extended", chunk: { strategy, max_characters: 100, new_after_n_chars: 4, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa\n\nbbbb", "cccc") },
    { name: "a chunk past the soft max is closed", chunk: { strategy, max_characters: 100, new_after_n_chars: 3, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa", "bbbb", "cccc") },
    { name: "soft max 0 puts each element alone", chunk: { strategy, max_characters: 100, new_after_n_chars: 0, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa", "bbbb", "cccc") },
    { name: "soft max does not split an element", chunk: { strategy, max_characters: 100, new_after_n_chars: 2, combine_text_under_n_chars: 0 }, elements: [N("abcdefgh")], want: texts("abcdefgh") },
    { name: "default equals max", chunk: { strategy, max_characters: 14, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa\n\nbbbb", "cccc") },
  ]));

  describe(`overlap (${strategy})`, () => run([
    { name: "text-split chunks carry overlap-1 chars plus a space", chunk: { strategy, max_characters: 10, overlap: 3 }, elements: [N("hello world foo")], want: texts("hello", "lo world", "ld foo") },
    { name: "hard cut re-reads the last overlap chars", chunk: { strategy, max_characters: 5, overlap: 2 }, elements: [N("abcdefghij")], want: texts("abcde", "defgh", "ghij") },
    { name: "overlap 1 adds nothing on a separator split", chunk: { strategy, max_characters: 10, overlap: 1 }, elements: [N("hello world foo")], want: texts("hello", "world foo") },
    { name: "whole-element chunks get no overlap", chunk: { strategy, max_characters: 9, overlap: 3, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa", "bbbb", "cccc") },
    { name: "split table rows overlap too", chunk: { strategy, max_characters: 14, overlap: 4 }, elements: [Tab("| a | b |\n|---|---|")], want: texts("| a | b |", "b | |---|---|") },
  ]));

  describe(`overlap_all (${strategy})`, () => run([
    { name: "prefix is the stripped tail of the previous chunk and counts against max", chunk: { strategy, max_characters: 10, overlap: 3, overlap_all: true, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa\n\nbbbb", "bbb\n\ncccc") },
    { name: "false means whole-element chunks are clean", chunk: { strategy, max_characters: 10, overlap: 3, overlap_all: false, combine_text_under_n_chars: 0 }, elements: abc, want: texts("aaaa\n\nbbbb", "cccc") },
    { name: "tables neither receive nor give overlap", chunk: { strategy, max_characters: 20, overlap: 3, overlap_all: true }, elements: [N("aaaa"), Tab("|xyz|"), N("bbbb"), N("cccc")], want: texts("aaaa", "|xyz|", "bbbb\n\ncccc") },
  ]));
}

describe("overlap_all (by_title sections)", () => run([
  { name: "section chunk starts with tail of previous section", chunk: { max_characters: 50, overlap: 4, overlap_all: true, combine_text_under_n_chars: 0 }, elements: [T("Alpha"), N("one"), T("Beta"), N("two")], want: texts("Alpha\n\none", "one\n\nBeta\n\ntwo") },
]));

const small = [T("A"), N("aa"), T("B"), N("bb"), T("C"), N("cc")];
describe("combine_text_under_n_chars (by_title)", () => run([
  { name: "0 disables combining", chunk: { max_characters: 100, combine_text_under_n_chars: 0 }, elements: small, want: texts("A\n\naa", "B\n\nbb", "C\n\ncc") },
  { name: "a section of exactly the threshold is not combined", chunk: { max_characters: 100, combine_text_under_n_chars: 5 }, elements: small, want: texts("A\n\naa", "B\n\nbb", "C\n\ncc") },
  { name: "combines while the accumulated text is under the threshold", chunk: { max_characters: 100, combine_text_under_n_chars: 6 }, elements: small, want: texts("A\n\naa\n\nB\n\nbb", "C\n\ncc") },
  { name: "default (= max_characters) combines whenever it fits", chunk: { max_characters: 100 }, elements: small, want: texts("A\n\naa\n\nB\n\nbb\n\nC\n\ncc") },
  { name: "combination never exceeds max", chunk: { max_characters: 11 }, elements: small, want: texts("A\n\naa", "B\n\nbb", "C\n\ncc") },
  { name: "combination up to exactly max", chunk: { max_characters: 12 }, elements: small, want: texts("A\n\naa\n\nB\n\nbb", "C\n\ncc") },
  { name: "platform default (1000) combines small sections", chunk: {}, elements: small, want: texts("A\n\naa\n\nB\n\nbb\n\nC\n\ncc") },
  { name: "tables are never combined", chunk: { max_characters: 100 }, elements: [T("A"), Tab("|t|"), T("B")], want: texts("A", "|t|", "B") },
  { name: "recombines soft-max pieces too (as unstructured does)", chunk: { max_characters: 100, new_after_n_chars: 0 }, elements: abc, want: texts("aaaa\n\nbbbb\n\ncccc") },
]));

describe("combine_text_under_n_chars is ignored by basic", () => run([
  { name: "basic with combine 0 still fills across titles", chunk: { strategy: "basic", max_characters: 100, combine_text_under_n_chars: 0 }, elements: small, want: texts("A\n\naa\n\nB\n\nbb\n\nC\n\ncc") },
]));

const paged = [N("one", 1), N("two", 1), N("three", 2), N("four", 3)];
describe("multipage_sections (by_title)", () => run([
  { name: "true lets a chunk span pages", chunk: { max_characters: 100, multipage_sections: true, combine_text_under_n_chars: 0 }, elements: paged, want: [{ text: "one\n\ntwo\n\nthree\n\nfour", pages: [1, 2, 3] }] },
  { name: "false starts a chunk at each page", chunk: { max_characters: 100, multipage_sections: false, combine_text_under_n_chars: 0 }, elements: paged, want: [
    { text: "one\n\ntwo", pages: [1] }, { text: "three", pages: [2] }, { text: "four", pages: [3] },
  ] },
  { name: "false with combining re-merges small pages (as unstructured does)", chunk: { max_characters: 100, multipage_sections: false }, elements: paged, want: [{ text: "one\n\ntwo\n\nthree\n\nfour", pages: [1, 2, 3] }] },
  { name: "elements without page continue the current page", chunk: { max_characters: 100, multipage_sections: false, combine_text_under_n_chars: 0 }, elements: [N("a", 2), N("b"), N("c", 2), N("d", 4)], want: [
    { text: "a\n\nb\n\nc", pages: [2] }, { text: "d", pages: [4] },
  ] },
]));

describe("multipage_sections is ignored by basic", () => run([
  { name: "basic spans pages", chunk: { strategy: "basic", max_characters: 100, multipage_sections: false }, elements: paged, want: [{ text: "one\n\ntwo\n\nthree\n\nfour", pages: [1, 2, 3] }] },
]));

describe("pages", () => run([
  { name: "span includes a page without text between two pages", chunk: { strategy: "basic" }, elements: [N("a", 2), N("b", 4)], want: [{ text: "a\n\nb", pages: [2, 3, 4] }] },
  { name: "every split piece keeps its element's page", chunk: { strategy: "basic", max_characters: 5 }, elements: [N("abcdefgh", 7)], want: [{ text: "abcde", pages: [7] }, { text: "fgh", pages: [7] }] },
  { name: "overlap prefix does not add the previous page", chunk: { strategy: "basic", max_characters: 8, overlap: 2, overlap_all: true }, elements: [N("aaaa", 1), N("bbbb", 2)], want: [{ text: "aaaa", pages: [1] }, { text: "aa\n\nbbbb", pages: [2] }] },
  { name: "no pages when elements have none", chunk: {}, elements: [N("x")], want: [{ text: "x", pages: [] }] },
]));

describe("prefix plus element over max is text-split (as unstructured does)", () => run([
  { name: "overlap_all prefix pushes the next element over max", chunk: { strategy: "basic", max_characters: 6, overlap: 2, overlap_all: true }, elements: [N("aaaa"), N("bbbb")], want: texts("aaaa", "aa", "a bbbb") },
  { name: "split table: second piece re-split by hard cut", chunk: { strategy: "basic", max_characters: 12, overlap: 4 }, elements: [Tab("| a | b |\n|---|---|")], want: texts("| a | b |", "b | |---|---", "|---|") },
]));

describe("edge cases", () => run([
  { name: "no elements, no chunks", chunk: {}, elements: [], want: [] },
  { name: "empty and whitespace-only elements produce no chunk", chunk: {}, elements: [N(""), el("PageBreak")(""), N("   ")], want: [] },
  { name: "a title alone is a chunk", chunk: { combine_text_under_n_chars: 0 }, elements: [T("Only")], want: texts("Only") },
]));
