// The PPTX converter as it was before slides were read with the Scanner (the oracle of
// test/convert/pptx-same-as-previous.test.ts).
import { ConversionError } from "../../src/ingest/convert/errors.ts";
import { decodeEntities, tokenize } from "./tokenizer-previous.ts";
import { escapeCell, escapeLineStart, renderTable, tableSize } from "../../src/ingest/convert/markdown-writer.ts";
import { TextBudget } from "../../src/ingest/convert/text-budget.ts";
import { ZipArchive, type ZipLimits } from "../../src/ingest/convert/zip.ts";

// PPTX → one `## <slide title>` section per slide in presentation order, with body paragraphs as lines
// and tables as markdown tables. Slides are not pages here: previews exist only for PDF.

const local = (name: string) => name.slice(name.indexOf(":") + 1);

function relTargets(xml: string | null): Map<string, string> {
  const rels = new Map<string, string>();
  for (const t of tokenize(xml ?? "", { xml: true })) {
    if (t.type === "start" && local(t.name) === "Relationship" && t.attrs.Id && t.attrs.Target) {
      rels.set(t.attrs.Id, t.attrs.Target);
    }
  }
  return rels;
}

function slideMarkdown(xml: string, n: number, budget: TextBudget): string {
  let tablesChars = 0;
  let title = "";
  const blocks: string[] = [];
  let isTitleShape = false;
  let para: string[] | null = null;
  let inText = false;
  let table: string[][] | null = null;
  let row: string[] | null = null;
  let cell: string[] | null = null;
  for (const t of tokenize(xml, { xml: true })) {
    if (t.type === "start") {
      const name = local(t.name);
      if (name === "sp") isTitleShape = false;
      else if (name === "ph" && (t.attrs.type === "title" || t.attrs.type === "ctrTitle")) isTitleShape = true;
      else if (name === "tbl") table = [];
      else if (name === "tr" && table) row = [];
      else if (name === "tc" && row) cell = [];
      else if (name === "p") para = [];
      else if (name === "t") inText = !t.selfClosing;
      else if (name === "br" && para) para.push(" ");
    } else if (t.type === "end") {
      const name = local(t.name);
      if (name === "t") inText = false;
      else if (name === "p" && para) {
        const text = para.join("").replace(/\s+/g, " ").trim();
        para = null;
        if (!text) continue;
        if (cell) cell.push(text);
        else if (isTitleShape && !title) title = text;
        else if (isTitleShape) title += " " + text;
        else blocks.push(escapeLineStart(text));
      } else if (name === "tc" && row && cell) { row.push(escapeCell(cell.join(" "))); cell = null; }
      else if (name === "tr" && table && row) { table.push(row); row = null; }
      else if (name === "tbl" && table) {
        // every row is padded to the widest: counted before the table is built
        budget.spend(tableSize(table).chars);
        const md = renderTable(table);
        if (md) blocks.push(md);
        table = null;
        tablesChars += md.length;
      }
    } else if (para && inText) para.push(decodeEntities(t.text));
  }
  const md = [`## ${title || `Slide ${n}`}`, ...blocks].join("\n\n");
  budget.spend(md.length - tablesChars); // the rest of the slide; its tables are counted already
  return md;
}

export function pptxToMarkdown(bytes: Uint8Array, limits: ZipLimits): string {
  const zip = new ZipArchive(bytes, limits);
  const presentation = zip.readText("ppt/presentation.xml");
  if (!presentation) throw new ConversionError("the PPTX has no ppt/presentation.xml part");
  const rels = relTargets(zip.readText("ppt/_rels/presentation.xml.rels"));
  const slides: string[] = [];
  // A slide part may be listed any number of times: what it expands into is what counts.
  const budget = new TextBudget(limits.maxUncompressedBytes, "the PPTX's slides hold", "slides listed many times over, or table rows padded to the widest");
  // And the XML parsed again for a slide listed more than once (the first reading of each part is held
  // by the zip limits): one large slide without text listed 100,000 times, 12 KiB of zip, held its
  // worker until the time limit.
  const reparsed = new TextBudget(limits.maxUncompressedBytes, "the PPTX's slides, counted each time its slide list names them, hold", "one slide listed many times over");
  const seen = new Set<string>();
  for (const t of tokenize(presentation, { xml: true })) {
    if (t.type !== "start" || local(t.name) !== "sldId") continue;
    const rid = Object.entries(t.attrs).find(([k]) => local(k) === "id" && k.includes(":"))?.[1];
    const target = rid ? rels.get(rid) : undefined;
    if (!target) continue;
    const path = target.startsWith("/") ? target.slice(1) : "ppt/" + target.replace(/^\.\//, "");
    const xml = zip.readText(path);
    if (xml === null) continue;
    if (seen.has(path)) reparsed.spend(xml.length);
    seen.add(path);
    slides.push(slideMarkdown(xml, slides.length + 1, budget));
  }
  return slides.length ? slides.join("\n\n") + "\n" : "";
}
