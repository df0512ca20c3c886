// Memory of parsing inputs made of very many short lines, cells or tokens: parseDocument (conversion,
// elements, chunks) in a child process of its own per case and stage, so the peak is that stage's. The
// "read" stage only decodes the bytes and splits them into lines: the floor any line-based pass has.
// Peak memory is the child's VmHWM (peak resident set); "before" is it once the input is read, before parsing.
// Inputs are written once to $TMPDIR/kbqa-bench-many-lines and reused (delete it after changing a case).
// "chunk" is conversion, elements and chunks (platform default) without the word count; "chunk-previous"
// the same with the chunker before a large element was folded as it is split (scripts/lib/chunker-previous/),
// "convert-previous" the XLSX converter before the Scanner (scripts/lib/xlsx-previous.ts; the zip reader is today's).
// Usage: bun scripts/bench-many-lines.ts [case...] [--stage read,convert,parse,chunk,chunk-previous,convert-previous]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import JSZip from "jszip";
import { convert } from "../src/ingest/convert/index.ts";
import { parseDocument } from "../src/ingest/pipeline.ts";
import { decodeText } from "../src/ingest/convert/text.ts";
import { elementsOf } from "../src/ingest/elements.ts";
import { chunkElements, PLATFORM_DEFAULT } from "../src/ingest/chunker/index.ts";
import { chunkElements as chunkElementsPrevious } from "./lib/chunker-previous/index.ts";
import { xlsxToMarkdown as xlsxToMarkdownPrevious } from "./lib/xlsx-previous.ts";

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
async function xlsxEmptyStrings(n: number): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file("[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`);
  zip.file("xl/workbook.xml", `<?xml version="1.0"?><workbook ${NS} ${R}><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`);
  zip.file("xl/_rels/workbook.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/></Relationships>`);
  zip.file("xl/sharedStrings.xml", `<?xml version="1.0"?><sst ${NS}><si><t>hello</t></si>` + "<si/>".repeat(n) + `</sst>`);
  zip.file("xl/worksheets/sheet1.xml", `<?xml version="1.0"?><worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`);
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE", compressionOptions: { level: 9 } });
}

const enc = (s: string) => new TextEncoder().encode(s);
function lines(n: number, f: (i: number) => string): string {
  let out = "";
  for (let i = 0; i < n; i++) out += f(i) + "\n";
  return out;
}
export const CASES: Record<string, { type: string; make: () => Uint8Array | Promise<Uint8Array> }> = {
  "text-5M-lines": { type: "text/plain", make: () => enc(lines(5_000_000, (i) => `line ${i} text`)) },
  "csv-3M-rows": { type: "text/csv", make: () => enc("id,name,amount,date\n" + lines(3_000_000, (i) => `${i},item${i % 997},${(i * 7) % 10000}.25`)) },
  "csv-10M-1char": { type: "text/csv", make: () => enc("a\n".repeat(10_000_000)) },
  "csv-5M-cols": { type: "text/csv", make: () => enc("a,".repeat(5_000_000) + "a\n") },
  "xlsx-38M-empty-strings": { type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", make: () => xlsxEmptyStrings(38_000_000) },
  "html-6M-br": { type: "text/html", make: () => enc("x<br>".repeat(6_000_000)) },
  "md-5M-lines": { type: "text/markdown", make: () => enc(lines(5_000_000, (i) => `line ${i} text`)) },
};

const status = (key: string) => Number(new RegExp(`^${key}:\\s*(\\d+)`, "m").exec(readFileSync("/proc/self/status", "utf8"))![1]) * 1024;
const DIR = `${tmpdir()}/kbqa-bench-many-lines`;
const LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };

if (process.argv[2] === "--child") {
  const [stage, name] = [process.argv[3]!, process.argv[4]!];
  const c = CASES[name]!;
  const bytes = new Uint8Array(readFileSync(`${DIR}/${name}`));
  Bun.gc(true);
  const before = status("VmHWM");
  const t0 = performance.now();
  let out = "";
  try {
    if (stage === "read") out = `${decodeText(bytes).split("\n").length} lines`;
    else if (stage === "convert") out = `${(await convert(bytes, c.type, LIMITS)).markdown.length} chars`;
    else if (stage === "convert-previous") {
      if (!c.type.includes("spreadsheetml")) throw new Error("convert-previous is for the XLSX case");
      out = `${xlsxToMarkdownPrevious(bytes, LIMITS).length} chars`;
    } else if (stage === "chunk" || stage === "chunk-previous") {
      const md = (await convert(bytes, c.type, LIMITS)).markdown;
      const chunks = (stage === "chunk" ? chunkElements : chunkElementsPrevious)(elementsOf(md), { ...PLATFORM_DEFAULT });
      out = `${md.length} chars, ${chunks.length} chunks`;
    }
    else {
      const p = await parseDocument(bytes, c.type, undefined, { limits: LIMITS });
      out = `${p.markdown.length} chars, ${p.chunks.length} chunks`;
    }
  } catch (e) {
    out = `error: ${(e as Error).message.slice(0, 120)}`;
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, hwm: status("VmHWM"), before, input: bytes.byteLength, out }));
  process.exit(0);
}

const mib = (b: number) => (b / 2 ** 20).toFixed(0) + " MiB";
mkdirSync(DIR, { recursive: true });
const args = process.argv.slice(2);
const si = args.indexOf("--stage");
const stages = si >= 0 ? args.splice(si, 2)[1]!.split(",") : ["read", "convert", "parse"];
const names = args.length ? args : Object.keys(CASES);
for (const name of names) {
  // The input is made once and read from a file by each child, so making it does not count in the child's peak.
  if (!existsSync(`${DIR}/${name}`)) writeFileSync(`${DIR}/${name}`, await CASES[name]!.make());
  for (const stage of stages) {
    const p = Bun.spawnSync([process.execPath, import.meta.path, "--child", stage, name], { stderr: "pipe" });
    if (p.exitCode !== 0) { console.log(`${name} ${stage}: exit ${p.exitCode} ${p.stderr.toString().slice(-300)}`); continue; }
    const m = JSON.parse(p.stdout.toString());
    console.log(`${name.padEnd(23)} ${stage.padEnd(7)} input ${mib(m.input).padStart(8)}: ${(m.ms / 1000).toFixed(2).padStart(6)} s, peak RSS ${mib(m.hwm).padStart(9)} (${mib(m.before)} before), ${m.out}`);
  }
}
