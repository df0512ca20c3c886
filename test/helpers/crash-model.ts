/**
 * What the crash-consistency test (test/crash/) believes the server holds: every write the server
 * acknowledged (2xx) and, for writes cut by the kill, what they may or may not have done.
 */
import { PDFDocument, StandardFonts } from "pdf-lib";

/** CRASH_SEED replays a run's choices (the kill lands where the clock says, so interleavings vary). */
export const SEED = Number(process.env.CRASH_SEED ?? 20261127);

/** A seed scrambled (murmur3's finaliser): the LCG of seeded.ts gives nearly equal first numbers for nearby seeds. */
export function mix(seed: number): number {
  let h = seed >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export type DocState = "awaiting" | "committed" | "refused" | "deleted";

export interface DocModel {
  id: string;
  corpusId: string;
  contentType: string;
  filename: string;
  state: DocState;
  /** Path and query of the current generation's unused upload URL (the port changes at restart). */
  uploadPath?: string;
  /** SHA-256 → size of what a commit of this generation may ingest (old bytes after a replacement). */
  candidates: Map<string, number>;
  /** SHA-256 of every byte string ever PUT to its key: the only things the object may hold. */
  ever: Set<string>;
  /** The last bytes an acknowledged PUT stored. */
  bytes?: Uint8Array;
  /** The operation the kill cut, if any: until reconciled, the model only knows the possibilities. */
  inflight?: string;
  uncertain?: string;
  /** Seen READY at a check, and given no new content since: it stays READY. */
  ready?: boolean;
  /** The bytes of the PUT in flight or cut by the kill. */
  sent?: Uint8Array;
  /** A cut PUT may not have stored anything: a commit may then answer 400. */
  loose?: boolean;
}

export interface CorpusModel {
  id: string;
  /** The workload actor that owns it, its documents and its sessions: each actor's model is sequential. */
  actor: number;
  deleted: boolean;
  inflight?: string;
  uncertain?: boolean;
}

export interface SessionModel {
  id: string;
  corpusId: string;
  /** Posts acknowledged (2 per answered question) and questions cut by the kill. */
  posts: number;
  cut: number;
}

export interface OrgModel {
  name: string;
  orgId: string;
  token: string;
  corpora: CorpusModel[];
  docs: DocModel[];
  sessions: SessionModel[];
  /** Creations whose answer the kill swallowed: at most this many unknown rows may show up. */
  lostInits: number;
  lostCorpora: number;
}

export const sha = (b: Uint8Array) => new Bun.CryptoHasher("sha256").update(b).digest("hex");

const WORDS = "pump valve leave policy holiday invoice server backup rotation audit budget travel badge laptop window".split(" ");

/** The code word of each byte string contentFor made (by SHA-256): a question naming it must find its document. */
export const codes = new Map<string, string>();

/** Distinct bytes per serial number, in the declared type, holding the serial's code word. */
export async function contentFor(type: string, serial: number, r: () => number): Promise<Uint8Array> {
  const bytes = await make(type, serial, r);
  codes.set(sha(bytes), codeWord(serial));
  return bytes;
}

/**
 * "zq", the serial in letters and "x": one word no other document holds, as a term too. Without
 * the "x" the index's English stemmer made one term of two serials' words ("zqabi" and "zqaby",
 * "zqawe" and "zqaws": 63 pairs below 2,000), and a question naming the short document's word
 * cited only the large document that repeats the other's (test/crash/code-words-are-distinct-terms.test.ts).
 */
export const codeWord = (n: number) => "zq" + [...n.toString(26).padStart(3, "0")].map((c) => String.fromCharCode(97 + parseInt(c, 26))).join("") + "x";

async function make(type: string, serial: number, r: () => number): Promise<Uint8Array> {
  const words = `${Array.from({ length: 8 + Math.floor(r() * 30) }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ")} and ${codeWord(serial)}`;
  if (type === "application/pdf") {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    // Now and then 8–20 pages: longer to parse and to render previews of, so the kill lands in them.
    const pages = r() < 0.2 ? 8 + Math.floor(r() * 13) : 1;
    for (let p = 1; p <= pages; p++) {
      const page = doc.addPage([300, 300]);
      page.drawText(`Note ${serial} page ${p}`, { x: 20, y: 260, size: 18, font });
      page.drawText(`${codeWord(serial)} ${words.slice(0, 50)}`, { x: 20, y: 230, size: 9, font });
    }
    return doc.save();
  }
  // Now and then 100–400 KB: past 64 KiB an upload goes to the disk with O_DIRECT, and ingestion takes longer.
  const more = r() < 0.15 ? `\n\n## Details\n\n${`The ${words}, item ${serial}.\n\n`.repeat(400 + Math.floor(r() * 1600))}` : "";
  const text = type === "text/markdown" ? `# Note ${serial}\n\nThe ${words}.\n${more}` : `Note ${serial}: the ${words}.\n${more}`;
  return new TextEncoder().encode(text);
}

export const TYPES = ["text/markdown", "text/plain", "application/pdf"] as const;

/** Marks every model entry the kill cut as uncertain. */
export function cut(orgs: OrgModel[]) {
  for (const o of orgs) {
    for (const d of o.docs) if (d.inflight) [d.uncertain, d.inflight] = [d.inflight, undefined];
    for (const c of o.corpora) if (c.inflight) [c.uncertain, c.inflight] = [true, undefined];
  }
}
