// `kbqa models fetch`: downloads model files from a Hugging Face-style hub
// ({hubUrl}/{repo}/resolve/{revision}/{path}). Each file goes to "<file>.part" in the model's
// staging folder (<dir>/.fetching/<name>/, which the models scan skips), resumes with an HTTP Range
// request after a dropped connection (within the run, and across runs), is checked against the
// expected sha256 (from the list, else the hub's x-linked-etag / ETag when it is a sha256), and is
// renamed to its plain name there when complete and verified. Only when every file of the model is
// there do they move into place: a failed run never leaves a model folder half filled (or empty)
// for a later start to take for an installed model.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, rmdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { RECOMMENDED_MODELS, type ModelFile, type RecommendedModel } from "./recommended.ts";

export { RECOMMENDED_MODELS } from "./recommended.ts";
export { formatProgressBar } from "./progress.ts";

export interface FetchProgress { file: string; done: number; total: number }
export interface FetchOptions {
  dir: string;
  hubUrl?: string;
  names?: string[];
  onProgress?: (p: FetchProgress) => void;
  /** attempts per file when the connection drops (default 5) */
  retries?: number;
  models?: RecommendedModel[];
}

export class ChecksumError extends Error {
  constructor(readonly file: string, readonly expected: string, readonly actual: string) {
    super(`Checksum mismatch for ${file}: expected sha256 ${expected}, got ${actual}. The partial file was removed.`);
    this.name = "ChecksumError";
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
const size = (p: string) => stat(p).then((s) => s.size, () => -1);

async function sha256File(p: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(p)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** The hub puts the LFS sha256 in x-linked-etag on the redirect; plain ETag for direct files. */
async function hubSha256(url: string): Promise<string | undefined> {
  const res = await fetch(url, { method: "HEAD", redirect: "manual" }).catch(() => undefined);
  const tag = (res?.headers.get("x-linked-etag") ?? res?.headers.get("etag") ?? "").replace(/^W\//, "").replace(/"/g, "").toLowerCase();
  return SHA256.test(tag) ? tag : undefined;
}

async function downloadOnce(url: string, part: string, file: string, onProgress?: (p: FetchProgress) => void): Promise<void> {
  const offset = Math.max(0, await size(part));
  const res = await fetch(url, { headers: offset ? { range: `bytes=${offset}-` } : {} });
  if (res.status === 416) return; // .part already holds the whole file
  if (!res.ok) throw Object.assign(new Error(`GET ${url} answered ${res.status}`), { fatal: res.status !== 429 && res.status < 500 });
  const resumed = res.status === 206;
  const length = Number(res.headers.get("content-length") ?? NaN);
  let done = resumed ? offset : 0;
  const total = Number.isFinite(length) ? done + length : 0;
  const fh = await open(part, resumed ? "a" : "w");
  try {
    for await (const chunk of res.body as any as AsyncIterable<Uint8Array>) {
      await fh.write(chunk);
      done += chunk.length;
      onProgress?.({ file, done, total });
    }
  } finally {
    await fh.close();
  }
  if (total && done < total) throw new Error(`connection closed at ${done}/${total} bytes`);
}

/** The hidden folder downloads are staged in; dot-folders are not scanned for models. */
export const STAGING = ".fetching";

/** Downloads one file into the staging folder (unless it is installed already); true when staged. */
async function fetchFile(hubUrl: string, dir: string, m: RecommendedModel, f: ModelFile, opts: FetchOptions): Promise<boolean> {
  const url = `${hubUrl.replace(/\/+$/, "")}/${m.repo}/resolve/${m.revision}/${f.path}`;
  const dest = join(dir, m.target, f.path);
  const staged = join(dir, STAGING, m.name, f.path);
  const label = join(m.target, f.path);
  const expected = f.sha256?.toLowerCase() ?? (await hubSha256(url));
  const verified = async (p: string) => (await size(p)) >= 0 && (!expected || (await sha256File(p)) === expected);
  if (await verified(dest)) return false; // already installed
  if (await verified(staged)) return true; // downloaded by an earlier run that failed on another file
  await rm(staged, { force: true });
  await mkdir(dirname(staged), { recursive: true });
  const part = staged + ".part";
  const attempts = opts.retries ?? 5;
  for (let i = 1; ; i++) {
    try {
      await downloadOnce(url, part, label, opts.onProgress);
      break;
    } catch (e: any) {
      if (e?.fatal || i >= attempts) throw e;
    }
  }
  if (expected) {
    const actual = await sha256File(part);
    if (actual !== expected) {
      await rm(part, { force: true });
      throw new ChecksumError(label, expected, actual);
    }
  }
  await rename(part, staged);
  return true;
}

/**
 * After a failure: empty .part files and the folders left empty go, so a run that downloaded
 * nothing leaves nothing; bytes already downloaded stay (hidden) for the next run to resume.
 */
async function pruneStaging(path: string): Promise<void> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return;
  for (const e of entries) {
    const p = join(path, e.name);
    if (e.isDirectory()) await pruneStaging(p);
    else if (e.name.endsWith(".part") && (await size(p)) === 0) await rm(p, { force: true });
  }
  await rmdir(path).catch(() => {}); // only succeeds when empty
}

async function fetchModel(hubUrl: string, opts: FetchOptions, m: RecommendedModel): Promise<void> {
  const stage = join(opts.dir, STAGING, m.name);
  try {
    const staged: ModelFile[] = [];
    for (const f of m.files) if (await fetchFile(hubUrl, opts.dir, m, f, opts)) staged.push(f);
    // In list order, so the file that makes a folder a model (listed last) is the last to arrive.
    for (const f of staged) {
      const dest = join(opts.dir, m.target, f.path);
      await mkdir(dirname(dest), { recursive: true });
      await rename(join(stage, f.path), dest);
    }
    await rm(stage, { recursive: true, force: true });
  } finally {
    await pruneStaging(stage);
    await rmdir(join(opts.dir, STAGING)).catch(() => {});
  }
}

export async function fetchModels(opts: FetchOptions): Promise<void> {
  const all = opts.models ?? RECOMMENDED_MODELS;
  const chosen = opts.names?.length ? all.filter((m) => opts.names!.includes(m.name)) : all;
  const unknown = (opts.names ?? []).filter((n) => !all.some((m) => m.name === n));
  if (unknown.length) throw new Error(`Unknown model name(s): ${unknown.join(", ")}. Known: ${all.map((m) => m.name).join(", ")}`);
  const hubUrl = opts.hubUrl ?? "https://huggingface.co";
  for (const m of chosen) await fetchModel(hubUrl, opts, m);
}
