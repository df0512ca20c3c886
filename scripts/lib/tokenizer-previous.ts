// The HTML/XML tokenizer as it was before the Scanner (one object per token); the oracle of
// test/convert/tokenizer-same-as-previous.test.ts and of the previous XLSX and HTML converters.
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

function match(re: RegExp, s: string, at: number): string {
  re.lastIndex = at;
  const m = re.exec(s);
  return m ? m[0] : "";
}

export function* tokenize(src: string, opts: { xml?: boolean } = {}): Generator<Token> {
  const n = src.length;
  let i = 0;
  while (i < n) {
    TAG_START_RE.lastIndex = i;
    const lt = TAG_START_RE.exec(src)?.index ?? -1;
    if (lt < 0) {
      yield { type: "text", text: src.slice(i) };
      return;
    }
    if (lt > i) yield { type: "text", text: src.slice(i, lt) };
    i = lt;
    const next = src.charCodeAt(i + 1);
    if (src.startsWith("<!--", i)) {
      const end = src.indexOf("-->", i + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (src.startsWith("<![CDATA[", i)) {
      const end = src.indexOf("]]>", i + 9);
      yield { type: "text", text: escapeText(src.slice(i + 9, end < 0 ? n : end)) };
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      const end = src.indexOf(">", i + 2);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (next === 47 /* / */) {
      const name = match(NAME_RE, src, i + 2);
      const end = src.indexOf(">", i + 2);
      i = end < 0 ? n : end + 1;
      if (name) yield { type: "end", name: opts.xml ? name : name.toLowerCase() };
      continue;
    }
    const rawName = match(NAME_RE, src, i + 1);
    if (!rawName) {
      yield { type: "text", text: "&lt;" };
      i += 1;
      continue;
    }
    const name = opts.xml ? rawName : rawName.toLowerCase();
    const attrs: Record<string, string> = {};
    let j = i + 1 + rawName.length;
    let selfClosing = false;
    for (;;) {
      j += match(WS_RE, src, j).length;
      if (j >= n) break;
      const c = src.charCodeAt(j);
      if (c === 62 /* > */) { j++; break; }
      if (c === 47 /* / */) {
        if (src.charCodeAt(j + 1) === 62) { selfClosing = true; j += 2; break; }
        j++;
        continue;
      }
      const an = match(ATTR_NAME_RE, src, j);
      if (!an) { j++; continue; }
      j += an.length;
      j += match(WS_RE, src, j).length;
      let value = "";
      if (src.charCodeAt(j) === 61 /* = */) {
        j++;
        j += match(WS_RE, src, j).length;
        const q = src.charCodeAt(j);
        if (q === 34 || q === 39) {
          const close = src.indexOf(q === 34 ? '"' : "'", j + 1);
          const stop = close < 0 ? n : close;
          value = src.slice(j + 1, stop);
          j = close < 0 ? n : close + 1;
        } else {
          value = match(UNQUOTED_RE, src, j);
          j += value.length;
        }
      }
      attrs[opts.xml ? an : an.toLowerCase()] = decodeEntities(value);
    }
    i = j;
    yield { type: "start", name, attrs, selfClosing };
    if (!opts.xml && !selfClosing && RAW_TEXT.has(name)) {
      const closeRe = new RegExp(`</${name}[\\s/>]`, "gi");
      closeRe.lastIndex = i;
      const m = closeRe.exec(src);
      const stop = m ? m.index : n;
      yield { type: "text", text: escapeText(src.slice(i, stop)) };
      i = stop;
    }
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
