// Models manifest: what sits in the models folder and which role each file can play.
//  - <dir>/<name>/ or <dir>/<owner>/<name>/ with config.json + tokenizer.json + onnx/*.onnx
//      → embedding model, or rerank when config.json declares a sequence-classification head
//  - any *.gguf file (top level or one folder down) → chat model (also usable as LLM reranker)
// Only metadata is read here: no model is loaded.
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import type { GgufFileInfo } from "node-llama-cpp";
import type { ModelInfo } from "./types.ts";

export interface ScannedModel extends ModelInfo {
  /** absolute path of the folder (ONNX) or file (GGUF) */
  path: string;
  format: "onnx" | "gguf";
  /** ONNX: file name inside onnx/ that will be loaded */
  onnxFile?: string;
  modelType?: string;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(() => true, () => false);
}

async function readJson(p: string): Promise<any> {
  try {
    return JSON.parse(await readFile(p, "utf8"));
  } catch {
    return undefined;
  }
}

/** licence from README front-matter ("license: mit") when present */
async function readLicence(folder: string, config: any): Promise<string | undefined> {
  try {
    const readme = await readFile(join(folder, "README.md"), "utf8");
    const fm = readme.match(/^---\s*\n([\s\S]*?)\n---/);
    const lic = fm?.[1]?.match(/^licen[cs]e:\s*["']?([^"'\n]+)["']?\s*$/m)?.[1];
    if (lic) return lic.trim();
  } catch {}
  return typeof config?.license === "string" ? config.license : undefined;
}

/** Prefer the quantised ONNX file: smaller and faster on CPU. */
function pickOnnx(files: string[]): string | undefined {
  const onnx = files.filter((f) => f.endsWith(".onnx")).sort();
  return onnx.find((f) => f === "model_quantized.onnx") ?? onnx.find((f) => f === "model.onnx") ?? onnx[0];
}

const CLASSIFIER = /ForSequenceClassification$/;

async function scanOnnxFolder(root: string, folder: string): Promise<ScannedModel | undefined> {
  if (!(await exists(join(folder, "config.json"))) || !(await exists(join(folder, "tokenizer.json")))) return;
  const onnxFiles = await readdir(join(folder, "onnx")).catch(() => [] as string[]);
  const onnxFile = pickOnnx(onnxFiles);
  if (!onnxFile) return;
  const config = await readJson(join(folder, "config.json"));
  const archs: string[] = config?.architectures ?? [];
  const classifier = archs.some((a) => CLASSIFIER.test(a));
  const labels = config?.num_labels ?? Object.keys(config?.id2label ?? { 0: 0 }).length;
  // A classifier with several labels (sentiment, NLI…) outputs label logits: neither a relevance
  // score nor a sentence vector, so it plays no role here rather than posing as an embedder.
  if (classifier && labels !== 1) return;
  const isRerank = classifier;
  const id = relative(root, folder).split("\\").join("/");
  return {
    id,
    role: isRerank ? "rerank" : "embedding",
    tier: "local",
    default: false,
    dims: isRerank ? undefined : config?.hidden_size ?? config?.d_model ?? config?.dim,
    contextLength: config?.max_position_embeddings,
    licence: await readLicence(folder, config),
    file: `${id}/onnx/${onnxFile}`,
    description: isRerank ? "ONNX cross-encoder re-ranker (transformers.js)" : "ONNX sentence-embedding model (transformers.js)",
    path: folder,
    format: "onnx",
    onnxFile,
    modelType: config?.model_type,
  };
}

/** Context length and licence from the GGUF header (metadata only; tensors are not read). */
async function ggufMeta(path: string): Promise<Partial<ModelInfo>> {
  try {
    const { readGgufFileInfo } = await import("node-llama-cpp");
    const info = await readGgufFileInfo(path, { readTensorInfo: false, logWarnings: false });
    const md: any = info.metadata;
    const arch = md?.general?.architecture;
    const ctx = arch ? md?.[arch]?.context_length : undefined;
    const out: Partial<ModelInfo> = {};
    if (typeof ctx === "number" || typeof ctx === "bigint") out.contextLength = Number(ctx);
    if (md?.general?.license) out.licence = String(md.general.license);
    if (md?.general?.name) out.description = `GGUF model "${md.general.name}" (node-llama-cpp)`;
    return out;
  } catch {
    return {}; // unreadable header: still listed; loading will report the real error
  }
}

/**
 * Why a GGUF file cannot be a model, in words, or undefined when nothing in its layout tells. A file
 * cut short in its header reads "successfully" with its metadata missing, so the architecture is
 * what tells; one cut in its tensor data (a copy stopped midway: the header is a few KB) has a whole
 * header, and is told by its size against where its tensors lie. Called once loading has failed.
 */
export async function ggufProblem(path: string): Promise<string | undefined> {
  try {
    const { readGgufFileInfo } = await import("node-llama-cpp");
    const info = await readGgufFileInfo(path, { readTensorInfo: true, logWarnings: false, spliceSplitFiles: false });
    if (!(info.metadata as any)?.general?.architecture) return "its GGUF header is incomplete: the file looks cut short (a partial copy or download?)";
    const size = (await stat(path)).size;
    const expected = await tensorDataEnd(info);
    if (expected !== undefined && size < expected) {
      return `its tensor data is incomplete (${size} bytes, at least ${expected} expected): the file looks cut short (a partial copy or download?)`;
    }
    return undefined;
  } catch (e) {
    const message = String((e as Error)?.message ?? e);
    if (/GGUF magic/i.test(message)) return 'it is not a GGUF model (the file does not start with "GGUF")';
    return `its GGUF header cannot be read (${message.split("\n", 1)[0]!.slice(0, 200)})`;
  }
}

/**
 * A lower bound of where the file's tensor data ends: the last tensor must start inside the file,
 * and the tensors, which do not overlap, need at least the sum of their sizes after the header
 * (node-llama-cpp's `modelSize`, which needs the runtime for the quantised types' sizes; a loading
 * that failed has it already). Alignment padding is left out, so a complete file never falls short.
 */
async function tensorDataEnd(info: GgufFileInfo): Promise<number | undefined> {
  const tensors = info.tensorInfo ?? [];
  if (tensors.length === 0 || info.infoEndOffset === undefined) return undefined;
  let end = Math.max(...tensors.map((t) => Number(t.fileOffset) + 1));
  try {
    const { GgufInsights } = await import("node-llama-cpp");
    const { sharedLlama } = await import("./llama-runtime.ts");
    const insights = await GgufInsights.from(info, await sharedLlama());
    end = Math.max(end, info.infoEndOffset + insights.modelSize);
  } catch {
    // a tensor type this runtime does not size: the offsets alone still tell most cuts
  }
  return end;
}

/**
 * What an entry of the models folder is, a symbolic link judged by its target: operators link
 * multi-gigabyte weights in from where they keep them rather than copy them, and such a link was
 * skipped without a word. A link whose target is gone is nothing. (The scan goes two levels
 * deep at most, so a link back to a parent cannot loop.)
 */
async function entryKind(e: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }, p: string): Promise<"file" | "dir" | null> {
  if (!e.isSymbolicLink()) return e.isFile() ? "file" : e.isDirectory() ? "dir" : null;
  const target = await stat(p).catch(() => null);
  return target?.isFile() ? "file" : target?.isDirectory() ? "dir" : null;
}

export async function scanModelsDetailed(dir: string): Promise<ScannedModel[]> {
  const out: ScannedModel[] = [];
  const top = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const visit = async (folder: string, entries: typeof top, depth: number) => {
    for (const e of entries) {
      const p = join(folder, e.name);
      const kind = await entryKind(e, p);
      if (kind === "file" && e.name.toLowerCase().endsWith(".gguf")) {
        const id = relative(dir, p).replace(/\.gguf$/i, "").split("\\").join("/");
        out.push({ id, role: "chat", tier: "local", default: false, file: relative(dir, p), description: "GGUF model (node-llama-cpp)", path: p, format: "gguf", ...(await ggufMeta(p)) });
      } else if (kind === "dir" && !e.name.startsWith(".")) {
        const onnx = await scanOnnxFolder(dir, p);
        if (onnx) out.push(onnx);
        else if (depth < 1) await visit(p, await readdir(p, { withFileTypes: true }).catch(() => []), depth + 1);
      }
    }
  };
  await visit(dir, top, 0);
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * What `kbqa models list` prints. `default` marks the folder's own pick per role, the model the
 * registry takes from this folder (the first of its role, in scan order; re-rankers have no
 * default): it was false for every model, so the listing never said which one would serve.
 */
export async function scanModels(dir: string): Promise<ModelInfo[]> {
  const picked = new Set<string>();
  return (await scanModelsDetailed(dir)).map(({ path: _p, format: _f, onnxFile: _o, modelType: _m, ...info }) => {
    const pick = info.role !== "rerank" && !picked.has(info.role);
    if (pick) picked.add(info.role);
    return { ...info, default: pick };
  });
}
