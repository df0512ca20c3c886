/**
 * CSV conversion as the version before the two-pass rewrite ran it (src/ingest/convert/csv.ts
 * `csvToMarkdown`), kept as the baseline of bench-csv.ts and of the test that compares markdown: the whole
 * text parsed into rows of cells, each cell its own string, then rendered at once.
 */
import { ConversionError } from "../../src/ingest/convert/errors.ts";
import { escapeCell, renderTable, tableSize } from "../../src/ingest/convert/markdown-writer.ts";
import { decodeText } from "../../src/ingest/convert/text.ts";
import { formatBytes } from "../../src/ingest/units.ts";

function oldParse(text: string, sep: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  const n = text.length;
  const plain = new RegExp(`[^${sep === "\t" ? "\\t" : sep}\\n]*`, "y");
  while (i < n) {
    const c = text[i]!;
    if (c === '"' && field === "") {
      let j = i + 1;
      const parts: string[] = [];
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) { parts.push(text.slice(j)); j = n; break; }
        parts.push(text.slice(j, q));
        if (text[q + 1] === '"') { parts.push('"'); j = q + 2; continue; }
        j = q + 1;
        break;
      }
      field = parts.join("");
      while (j < n && text[j] !== sep && text[j] !== "\n") field += text[j++];
      i = j;
      continue;
    }
    if (c === sep) { row.push(field); field = ""; i++; continue; }
    if (c === "\n") { row.push(field); rows.push(row); row = []; field = ""; i++; continue; }
    plain.lastIndex = i;
    const run = plain.exec(text)![0];
    field += run || c;
    i += run.length || 1;
  }
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows.filter((r) => !(r.length === 1 && r[0] === ""));
}

function oldSeparator(text: string): string {
  const first = text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n"));
  const count = (s: string) => first.split(s).length - 1;
  const best = [",", ";", "\t"].sort((x, y) => count(y) - count(x))[0]!;
  return count(best) > 0 ? best : ",";
}

export function csvToMarkdownPrevious(bytes: Uint8Array, maxChars = Number.POSITIVE_INFINITY): string {
  const text = decodeText(bytes);
  const rows = oldParse(text, oldSeparator(text)).map((r) => r.map((f) => escapeCell(f.replace(/\s*\n\s*/g, " ").trim())));
  const { chars, cols } = tableSize(rows);
  if (chars > maxChars) {
    throw new ConversionError(`the CSV's table would hold more than ${formatBytes(maxChars)} of text (each of its rows padded to the ${cols} columns of its widest row), over the limit`);
  }
  const table = renderTable(rows);
  return table ? table + "\n" : "";
}
