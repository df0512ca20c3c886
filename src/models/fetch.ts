// `kbqa models fetch`: downloads model files from a Hugging Face-style hub
// ({hubUrl}/{repo}/resolve/{revision}/{path}). Each file goes to "<dest>.part", resumes with an
// HTTP Range request after a dropped connection (within the run, and across runs), is checked
// against the expected sha256 (from the list, else the hub's x-linked-etag / ETag when it is a
// sha256), and is renamed into place only when complete and verified.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
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

async function fetchFile(hubUrl: string, dir: string, m: RecommendedModel, f: ModelFile, opts: FetchOptions): Promise<void> {
  const url = `${hubUrl.replace(/\/+$/, "")}/${m.repo}/resolve/${m.revision}/${f.path}`;
  const dest = join(dir, m.target, f.path);
  const label = join(m.target, f.path);
  const expected = f.sha256?.toLowerCase() ?? (await hubSha256(url));
  if ((await size(dest)) >= 0) {
    if (!expected || (await sha256File(dest)) === expected) return; // already installed
    await rm(dest);
  }
  await mkdir(dirname(dest), { recursive: true });
  const part = dest + ".part";
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
  await rename(part, dest);
}

export async function fetchModels(opts: FetchOptions): Promise<void> {
  const all = opts.models ?? RECOMMENDED_MODELS;
  const chosen = opts.names?.length ? all.filter((m) => opts.names!.includes(m.name)) : all;
  const unknown = (opts.names ?? []).filter((n) => !all.some((m) => m.name === n));
  if (unknown.length) throw new Error(`Unknown model name(s): ${unknown.join(", ")}. Known: ${all.map((m) => m.name).join(", ")}`);
  const hubUrl = opts.hubUrl ?? "https://huggingface.co";
  for (const m of chosen) for (const f of m.files) await fetchFile(hubUrl, opts.dir, m, f, opts);
}
