// A small tolerant HTML/XML tokenizer. It is a single forward scan (indexOf / sticky regexes without
// nested quantifiers), so its cost is linear in the input and independent of nesting depth.

export type Token =
  | { type: "text"; text: string }
  | { type: "start"; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { type: "end"; name: string };

/** Elements whose content is raw text up to the matching end tag (HTML only). */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"]);

const NAME_RE = /[A-Za-z][^\s/>]*/y;
const ATTR_NAME_RE = /[^\s"'>\/=]+/y;
const WS_RE = /\s*/y;
const UNQUOTED_RE = /[^\s>]*/y;

/**
 * A "<" that can open markup; one before anything else is text, kept as it is in the text around it
 * (consumers decode entities in text, and a bare "<" is left alone by that). Such a "<" had been a
 * text token of its own ("&lt;"), and the converter holds every token until its block ends: 30 MB
 * of "<" made 30 million of them and took the worker past its 1 GiB memory limit.
 */
const TAG_START_RE = /<[A-Za-z/!?]/g;

/** Where a sticky regex's match starting at `at` ends (`at` when it does not match); `test` makes no match array. */
function matchEnd(re: RegExp, s: string, at: number): number {
  re.lastIndex = at;
  return re.test(s) ? re.lastIndex : at;
}

/** A start tag's attributes kept as ranges; past these they are kept as tokenize() kept them. */
const MAX_ATTR_RANGES = 1024;

/** What Scanner.next found. */
export const TEXT = 1;
export const START = 2;
export const END = 3;

/** How a text token's range is read: as it is, escaped (CDATA, raw-text elements), or the literal "&lt;". */
const PLAIN = 0;
const ESCAPED = 1;
const LT = 2;

/**
 * The tokens of `tokenize`, one at a time in place: where a token's name, text and attributes lie in
 * the source, a string made only when asked for. The generator made an object per token, an attributes
 * object and a name string per tag, and an iterator result: for 38 million `<si/>` (a 278 KB XLSX)
 * the collector let that garbage pile up to about 380 MiB beside the part's 190 MB of text.
 */
export class Scanner {
  /** TEXT, START or END; 0 once the source is read. */
  kind = 0;
  selfClosing = false;
  private i = 0;
  private nameStart = 0;
  private nameEnd = 0;
  private localStart = 0;
  private textStart = 0;
  private textEnd = 0;
  private textMode = PLAIN;
  /** Per attribute of the last start tag: its name's start and end, its value's start and end. */
  private readonly attrAt: number[] = [];
  private attrCount = 0;
  /**
   * All of a tag's attributes once it has more than MAX_ATTR_RANGES, as tokenize() gave them (one key
   * per name): the ranges of every attribute of one 30 MB tag of 15 million took 1.2 GB.
   */
  private many: Record<string, string> | null = null;
  /** A raw-text element just started (HTML): its text up to its end tag is the next token. */
  private rawName = "";
  /** The last name made per first character and length, as written and as given: a repeated tag name is not sliced again. */
  private readonly rawNames: string[] = new Array<string>(64).fill("");
  private readonly names: string[] = new Array<string>(64).fill("");

  constructor(private readonly src: string, private readonly xml: boolean) {}

  next(): boolean {
    const src = this.src;
    const n = src.length;
    if (this.rawName) {
      const closeRe = new RegExp(`</${this.rawName}[\\s/>]`, "gi");
      this.rawName = "";
      closeRe.lastIndex = this.i;
      const m = closeRe.exec(src);
      const stop = m ? m.index : n;
      this.setText(this.i, stop, ESCAPED);
      this.i = stop;
      return true;
    }
    while (this.i < n) {
      const i = this.i;
      TAG_START_RE.lastIndex = i;
      // every match is two characters long
      const lt = TAG_START_RE.test(src) ? TAG_START_RE.lastIndex - 2 : -1;
      if (lt < 0) {
        this.setText(i, n, PLAIN);
        this.i = n;
        return true;
      }
      if (lt > i) {
        this.setText(i, lt, PLAIN);
        this.i = lt;
        return true;
      }
      const next = src.charCodeAt(i + 1);
      if (src.startsWith("<!--", i)) {
        const end = src.indexOf("-->", i + 4);
        this.i = end < 0 ? n : end + 3;
        continue;
      }
      if (src.startsWith("<![CDATA[", i)) {
        const end = src.indexOf("]]>", i + 9);
        this.setText(i + 9, end < 0 ? n : end, ESCAPED);
        this.i = end < 0 ? n : end + 3;
        return true;
      }
      if (next === 33 /* ! */ || next === 63 /* ? */) {
        const end = src.indexOf(">", i + 2);
        this.i = end < 0 ? n : end + 1;
        continue;
      }
      if (next === 47 /* / */) {
        const nameEnd = matchEnd(NAME_RE, src, i + 2);
        const end = src.indexOf(">", i + 2);
        this.i = end < 0 ? n : end + 1;
        if (nameEnd > i + 2) {
          this.setName(i + 2, nameEnd);
          this.kind = END;
          return true;
        }
        continue;
      }
      const nameEnd = matchEnd(NAME_RE, src, i + 1);
      if (nameEnd === i + 1) {
        this.setText(i, i + 1, LT);
        this.i = i + 1;
        return true;
      }
      this.setName(i + 1, nameEnd);
      this.attrCount = 0;
      this.many = null;
      let j = nameEnd;
      let selfClosing = false;
      for (;;) {
        j = matchEnd(WS_RE, src, j);
        if (j >= n) break;
        const c = src.charCodeAt(j);
        if (c === 62 /* > */) { j++; break; }
        if (c === 47 /* / */) {
          if (src.charCodeAt(j + 1) === 62) { selfClosing = true; j += 2; break; }
          j++;
          continue;
        }
        const anEnd = matchEnd(ATTR_NAME_RE, src, j);
        if (anEnd === j) { j++; continue; }
        const anStart = j;
        j = matchEnd(WS_RE, src, anEnd);
        let v0 = j;
        let v1 = j;
        if (src.charCodeAt(j) === 61 /* = */) {
          j = matchEnd(WS_RE, src, j + 1);
          const q = src.charCodeAt(j);
          if (q === 34 || q === 39) {
            const close = src.indexOf(q === 34 ? '"' : "'", j + 1);
            v0 = j + 1;
            v1 = close < 0 ? n : close;
            j = close < 0 ? n : close + 1;
          } else {
            v0 = j;
            j = v1 = matchEnd(UNQUOTED_RE, src, j);
          }
        }
        if (this.attrCount === MAX_ATTR_RANGES) {
          this.many ??= this.attrs();
          const an = src.slice(anStart, anEnd);
          this.many[this.xml ? an : an.toLowerCase()] = decodeEntities(src.slice(v0, v1));
          continue;
        }
        const a = 4 * this.attrCount++;
        this.attrAt[a] = anStart;
        this.attrAt[a + 1] = anEnd;
        this.attrAt[a + 2] = v0;
        this.attrAt[a + 3] = v1;
      }
      this.i = j;
      this.kind = START;
      this.selfClosing = selfClosing;
      if (!this.xml && !selfClosing) {
        const name = this.name;
        if (RAW_TEXT.has(name)) this.rawName = name;
      }
      return true;
    }
    this.kind = 0;
    return false;
  }

  private setText(start: number, end: number, mode: number): void {
    this.kind = TEXT;
    this.textStart = start;
    this.textEnd = end;
    this.textMode = mode;
  }

  private setName(start: number, end: number): void {
    this.nameStart = start;
    this.nameEnd = end;
    let l = start;
    while (l < end && this.src.charCodeAt(l) !== 58 /* : */) l++;
    this.localStart = l < end ? l + 1 : start;
  }

  /** A text token's text, as the tokenizer gave it (entities not decoded). */
  get text(): string {
    if (this.textMode === LT) return "&lt;";
    const s = this.src.slice(this.textStart, this.textEnd);
    return this.textMode === ESCAPED ? escapeText(s) : s;
  }

  /** A tag's name (lower-cased in HTML). */
  get name(): string {
    const { src, nameStart, nameEnd } = this;
    const len = nameEnd - nameStart;
    const slot = (src.charCodeAt(nameStart) * 7 + len) & 63;
    const raw = this.rawNames[slot]!;
    if (raw.length === len && len > 0 && src.startsWith(raw, nameStart)) return this.names[slot]!;
    const made = src.slice(nameStart, nameEnd);
    this.rawNames[slot] = made;
    return (this.names[slot] = this.xml ? made : made.toLowerCase());
  }

  /** True when a tag's name past its prefix (`x:si` → `si`) is `local`, without making a string. */
  localIs(local: string): boolean {
    return this.nameEnd - this.localStart === local.length && this.src.startsWith(local, this.localStart);
  }

  /** The value of a start tag's attribute as `attrs()` holds it under `key` (undefined when absent: nothing inherited). */
  attr(key: string): string | undefined {
    if (this.many) return Object.hasOwn(this.many, key) ? this.many[key] : undefined;
    const { src, attrAt } = this;
    for (let k = this.attrCount - 1; k >= 0; k--) {
      const a = attrAt[4 * k]!;
      const b = attrAt[4 * k + 1]!;
      // (lower-casing can change a name's length)
      if (this.xml ? b - a === key.length && src.startsWith(key, a) : src.slice(a, b).toLowerCase() === key) {
        return decodeEntities(src.slice(attrAt[4 * k + 2]!, attrAt[4 * k + 3]!));
      }
    }
    return undefined;
  }

  /** A start tag's attributes as one object, the last of a repeated name winning. */
  attrs(): Record<string, string> {
    if (this.many) return this.many;
    const { src, attrAt } = this;
    const attrs: Record<string, string> = {};
    for (let k = 0; k < this.attrCount; k++) {
      const an = src.slice(attrAt[4 * k]!, attrAt[4 * k + 1]!);
      attrs[this.xml ? an : an.toLowerCase()] = decodeEntities(src.slice(attrAt[4 * k + 2]!, attrAt[4 * k + 3]!));
    }
    return attrs;
  }
}

export function* tokenize(src: string, opts: { xml?: boolean } = {}): Generator<Token> {
  const s = new Scanner(src, !!opts.xml);
  while (s.next()) {
    if (s.kind === TEXT) yield { type: "text", text: s.text };
    else if (s.kind === START) yield { type: "start", name: s.name, attrs: s.attrs(), selfClosing: s.selfClosing };
    else yield { type: "end", name: s.name };
  }
}

function escapeText(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}

// No prototype: "&constructor;" or "&toString;" must stay text, not become the source of a built-in function.
const NAMED: Record<string, string> = Object.assign(Object.create(null), {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", copy: "©", reg: "®", trade: "™",
  hellip: "…", mdash: "—", ndash: "–", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«", raquo: "»",
  bull: "•", middot: "·", euro: "€", pound: "£", yen: "¥", cent: "¢", sect: "§", para: "¶", deg: "°",
  times: "×", divide: "÷", plusmn: "±", shy: "", zwnj: "\u200c", zwj: "\u200d", eacute: "é", egrave: "è",
  agrave: "à", ccedil: "ç", ecirc: "ê", uuml: "ü", ouml: "ö", auml: "ä", szlig: "ß", ntilde: "ñ",
});

const ENTITY_RE = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?/g;

export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(ENTITY_RE, (whole, body: string) => {
    if (body[0] === "#") {
      const cp = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : "\ufffd";
    }
    const v = NAMED[body] ?? NAMED[body.toLowerCase()];
    return v ?? whole;
  });
}
