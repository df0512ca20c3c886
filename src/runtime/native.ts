// Native libraries of the compiled executable. Addons whose shared libraries are found through
// RUNPATH=$ORIGIN (onnxruntime, llama.cpp and its per-CPU ggml backends) cannot be dlopen'ed from
// Bun's embedded filesystem, so every native group is embedded zstd-compressed and written once to
// a private folder on disk, named by the content hash of all groups: later starts only stat it.
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface NativeFile {
  /** File name inside the group's folder (may contain one sub-folder, e.g. "linux-x64/llama-addon.node"). */
  name: string;
  /** Path of the embedded (compressed) copy, as given by `import … with { type: "file" }`. */
  embedded: string;
  /** Uncompressed size in bytes; a mismatch on disk means a damaged extraction. */
  size: number;
}

export interface NativeManifest {
  /** Hash of every native file: the extraction folder's name. */
  id: string;
  groups: Record<string, NativeFile[]>;
}

let rootOverride: string | undefined;

/** Where groups are extracted; the default is a private per-user folder in the temp directory. */
export function configureNativeDir(dir: string): void {
  rootOverride = dir;
}

function defaultRoot(): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return join(tmpdir(), `kbqa-runtime-${uid}`);
}

/**
 * A shared folder such as /tmp must be ours and closed to others before we load code from it:
 * otherwise another local user could plant a library there.
 */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = typeof process.getuid === "function" ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.isSymbolicLink()) throw new Error(`${dir} is not a directory`);
  if (st.uid !== uid) throw new Error(`${dir} belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o022) !== 0) throw new Error(`${dir} is writable by other users (mode ${(st.mode & 0o777).toString(8)})`);
}

function complete(dir: string, files: NativeFile[]): boolean {
  if (!existsSync(join(dir, ".complete"))) return false;
  return files.every((f) => {
    try {
      return lstatSync(join(dir, f.name)).size === f.size;
    } catch {
      return false;
    }
  });
}

const extracted = new Map<string, string>();

/** Folder holding the group's files, extracting them on first use (atomic: temp folder + rename). */
export function extractGroup(manifest: NativeManifest, group: string, root = rootOverride ?? defaultRoot()): string {
  const key = `${root}\0${group}`;
  const known = extracted.get(key);
  if (known) return known;
  const files = manifest.groups[group];
  if (!files) throw new Error(`native group "${group}" is not part of this executable`);
  ensurePrivateDir(root);
  const base = join(root, manifest.id);
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const dir = join(base, group);
  if (!complete(dir, files)) {
    const tmp = join(base, `.${group}.${process.pid}.${Date.now()}`);
    rmSync(tmp, { recursive: true, force: true });
    for (const f of files) {
      const target = join(tmp, f.name);
      mkdirSync(join(target, ".."), { recursive: true, mode: 0o700 });
      const bytes = Bun.zstdDecompressSync(readFileSync(f.embedded));
      if (bytes.length !== f.size) throw new Error(`embedded ${f.name} is damaged (${bytes.length} ≠ ${f.size} bytes)`);
      const fd = openSync(target, "w", 0o700);
      try {
        for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    writeFileSync(join(tmp, ".complete"), manifest.id, { mode: 0o600 });
    try {
      // A damaged earlier extraction is replaced; a concurrent process that won the race is kept.
      if (existsSync(dir) && !complete(dir, files)) rmSync(dir, { recursive: true, force: true });
      renameSync(tmp, dir);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (!complete(dir, files)) throw e;
    }
  }
  extracted.set(key, dir);
  return dir;
}

/** Loads a Node-API addon from an extracted group. */
export function loadAddon(manifest: NativeManifest, group: string, file: string): any {
  const path = join(extractGroup(manifest, group), file);
  const module = { exports: {} as any };
  process.dlopen(module, path);
  return module.exports;
}
