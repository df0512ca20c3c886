import { ConversionError } from "./errors.ts";
import { decodeEntities, END, Scanner, START, tokenize } from "./html-tokenizer.ts";
import { escapeCell, escapeLineStart, renderTable, tableSize } from "./markdown-writer.ts";
import { TextBudget } from "./text-budget.ts";
import { ZipArchive, type ZipLimits } from "./zip.ts";

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

const isTitleType = (type: string | undefined) => type === "title" || type === "ctrTitle";

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
  // The Scanner, not tokenize(): no token object, attributes object or name string per tag.
  for (const t = new Scanner(xml, true); t.next(); ) {
    if (t.kind === START) {
      if (t.localIs("sp")) isTitleShape = false;
      else if (t.localIs("ph") && isTitleType(t.attr("type"))) isTitleShape = true;
      else if (t.localIs("tbl")) table = [];
      else if (t.localIs("tr") && table) row = [];
      else if (t.localIs("tc") && row) cell = [];
      else if (t.localIs("p")) para = [];
      else if (t.localIs("t")) inText = !t.selfClosing;
      else if (t.localIs("br") && para) para.push(" ");
    } else if (t.kind === END) {
      if (t.localIs("t")) inText = false;
      else if (t.localIs("p") && para) {
        const text = para.join("").replace(/\s+/g, " ").trim();
        para = null;
        if (!text) continue;
        if (cell) cell.push(text);
        else if (isTitleShape && !title) title = text;
        else if (isTitleShape) title += " " + text;
        else blocks.push(escapeLineStart(text));
      } else if (t.localIs("tc") && row && cell) { row.push(escapeCell(cell.join(" "))); cell = null; }
      else if (t.localIs("tr") && table && row) { table.push(row); row = null; }
      else if (t.localIs("tbl") && table) {
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
