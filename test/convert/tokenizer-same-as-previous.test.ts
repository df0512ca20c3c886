import { expect, test } from "bun:test";
import { END, Scanner, START, TEXT, tokenize, type Token } from "../../src/ingest/convert/html-tokenizer.ts";
import { tokenize as tokenizePrevious } from "../../scripts/lib/tokenizer-previous.ts";
import { mulberry32 as rng } from "../helpers/seeded.ts";

// The tokenizer now reads tokens in place (Scanner) and the generator is built on it; the XLSX
// reader asks the Scanner for local names and attributes without the token objects. Both must give
// exactly what the previous tokenizer (scripts/lib/tokenizer-previous.ts) gave, in HTML and XML.

const BITS = [
  "x", "two words", " ", "\n", "&amp;", "&lt;", "&#x41;", "<", ">", "/", "=", '"', "'", "<p>", "</p>", "<P CLASS=a>", "</P >",
  "<br/>", "<br />", "<x:si>", "</x:si>", "<si/>", "<si>", "</si>", "<t>", "</t>", "<t xml:space=\"preserve\">", "<rPh>", "</rPh>",
  "<c r=\"A1\" t=\"s\">", "<c r='B2' t=s>", "<c t=\"s\" t=\"n\" r=B1 r=C9>", "<c R=\"A1\" T=\"s\">", "</c>", "<v>", "</v>",
  "<img alt=\"a &amp; b\" ALT=second>", "<ol start=3>", "<a href=x title>", "<a b c=>", "<a =x>", "<a/b>", "<a \u0130d=1>",
  "<!-- c -->", "<!--", "-->", "<![CDATA[a<b&c]]>", "<![CDATA[", "]]>", "<!DOCTYPE x>", "<?xml version=\"1.0\"?>", "<?pi",
  "</>", "</ x>", "< x>", "<1>", "<script>", "</script>", "<SCRIPT>a</b>", "</SCRIPT >", "<style>", "</style>", "<title>",
  "</title\n>", "<textarea/>", "<xmp>", "</xmp", "<a:b:c d:e='f'>", "</a:b:c>", "<\u00e9>", "\u00e9", "\u{1d11e}",
];

function random(rand: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += BITS[Math.floor(rand() * BITS.length)]!;
  return s;
}

const local = (name: string) => name.slice(name.indexOf(":") + 1);
const KEYS = ["r", "t", "alt", "start", "href", "c", "class", "d:e", "İd", "i̇d", "constructor"];

/** The Scanner's own reading of each token, checked against the token the generator made of it. */
function scannerAgrees(src: string, xml: boolean, tokens: Token[]): void {
  const s = new Scanner(src, xml);
  for (const t of tokens) {
    expect(s.next()).toBe(true);
    expect(s.kind).toBe(t.type === "text" ? TEXT : t.type === "start" ? START : END);
    if (t.type === "text") continue;
    expect(s.name).toBe(t.name);
    if (xml) expect(s.localIs(local(t.name))).toBe(true);
    expect(s.localIs(local(t.name) + "x")).toBe(false);
    if (t.type !== "start") continue;
    for (const k of KEYS) expect(s.attr(k), k).toBe(Object.hasOwn(t.attrs, k) ? t.attrs[k] : undefined);
  }
  expect(s.next()).toBe(false);
}

test("on 6,000 seeded random sources, HTML and XML, the tokens are the previous tokenizer's", () => {
  const rand = rng(7);
  const sources = ["", "<", "<a", "<a b='", "<a b=\"x", "<script>", "<![CDATA[x", "x<br>".repeat(1000)];
  for (let i = 0; i < 6000; i++) sources.push(random(rand, Math.floor(rand() * 40)));
  for (const src of sources) {
    for (const xml of [false, true]) {
      const now = [...tokenize(src, { xml })];
      expect(now, JSON.stringify(src)).toEqual([...tokenizePrevious(src, { xml })]);
      scannerAgrees(src, xml, now);
    }
  }
});

test("a name or attribute met again is given equal, whatever the cache held", () => {
  // Names of one first character and length share a cache slot; they must not be mixed up.
  const src = "<ab><ac><AB></ab><ac x=1 X=2><ab x=3>";
  expect([...tokenize(src)]).toEqual([...tokenizePrevious(src)]);
  expect([...tokenize(src, { xml: true })]).toEqual([...tokenizePrevious(src, { xml: true })]);
});

test("tags of more attributes than the Scanner keeps as ranges (1,024) give the same tokens and lookups", () => {
  // Past 1,024 the attributes are kept as tokenize() kept them, one key per name: the ranges of
  // every attribute of a 30 MB tag of 15 million took 1.2 GB.
  const many = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(" ");
  const sources = [
    `<c ${many(3000, () => "b")} r="A1" t=s>x</c>`,
    `<c r="A1" ${many(1023, (i) => `a${i}=${i}`)} r="B2" t=n r=C3>`,
    `<c ${many(1024, (i) => `a${i}`)} r=&amp;x>`,
    `<c ${many(1025, (i) => (i % 2 ? "r=Z9" : `T=${i}`))} t='last' ALT=1 alt=2 start=3>`,
    `<img ${many(5000, (i) => `Alt=${i}`)}><x:c x:r="1" ${many(2000, () => "b")}/><p>`,
  ];
  for (const src of sources) {
    for (const xml of [false, true]) {
      const now = [...tokenize(src, { xml })];
      expect(now).toEqual([...tokenizePrevious(src, { xml })]);
      scannerAgrees(src, xml, now);
    }
  }
});
